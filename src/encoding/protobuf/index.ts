export {
  decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject, encodeProtobufWatchEvent, protobufMediaType,
} from './codec.ts';
export { hasProtobufDescriptor } from './kinds.ts';
