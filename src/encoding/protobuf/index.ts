// What other folders import from encoding/protobuf/.
export {
  decodeProtobufBody, decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject, encodeProtobufRaw, encodeProtobufWatchEvent,
  ProtobufDecodeError, type ProtobufDefaults, protobufEnvelope, protobufList, protobufMediaType, protobufWatchEvent,
} from './codec.ts';
export { hasProtobufDescriptor } from './kinds.ts';
