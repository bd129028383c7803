// What other folders import from encoding/protobuf/.
export {
  decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject, encodeProtobufWatchEvent, protobufMediaType,
} from './codec.ts';
export { hasProtobufDescriptor } from './kinds.ts';
