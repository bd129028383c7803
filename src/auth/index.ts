// What other folders import from auth/.
export type { UserInfo } from './user.ts';
export { ensureAdminToken, parseTokenFile } from './token-file.ts';
export type { Authenticator } from './authenticate.ts';
export { bearerAuthenticator, bearerToken } from './authenticate.ts';
export type { AuthorizationAttributes, Authorizer } from './authorize.ts';
export { alwaysAllow, forbiddenError } from './authorize.ts';
