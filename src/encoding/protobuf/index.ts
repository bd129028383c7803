// What other folders import from encoding/protobuf/.
export {
  decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject, encodeProtobufRaw, encodeProtobufWatchEvent,
  protobufEnvelope, protobufList, protobufMediaType, protobufWatchEvent,
} from './codec.ts';
export { hasProtobufDescriptor } from './kinds.ts';
