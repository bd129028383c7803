// The CBOR object codec (cbor-objects.ts), loaded on first need: it reads the Protobuf
// message tables to find built-in types' []byte fields, and most clients never use CBOR,
// so start-up does not pay for those tables.

export type CborObjectCodec = typeof import('./cbor-objects.ts');

let codec: CborObjectCodec | undefined;

/** Loads the CBOR object codec (once). */
export async function loadCborObjectCodec(): Promise<CborObjectCodec> {
  codec ??= await import('./cbor-objects.ts');
  return codec;
}
