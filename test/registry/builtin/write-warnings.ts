export { createWarned, updateWarned, type Warned } from '../../helpers/store.ts';
