// The Protobuf codec, loaded on first need: its message tables are the largest module of
// the server, and most clients never use Protobuf, so start-up does not pay for them.

export type ProtobufCodec = typeof import('./protobuf/index.ts');

let codec: ProtobufCodec | undefined;

/** Loads the Protobuf codec (once). */
export async function loadProtobufCodec(): Promise<ProtobufCodec> {
  codec ??= await import('./protobuf/index.ts');
  return codec;
}

/** The codec when it has been loaded, for callers that must not wait. */
export function loadedProtobufCodec(): ProtobufCodec | undefined {
  return codec;
}
