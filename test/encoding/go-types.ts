// Reads the Go type descriptors (what reflect sees) of a stripped Linux amd64 Go binary:
// every named struct and slice type with its package path and fields (name, tag, type).
// Kubernetes v1.36 binaries no longer embed the gogo FileDescriptorProtos kubectl 1.33
// still carried, so their struct types and `protobuf:` tags are what is left to read the
// messages from (protobuf-descriptor-source.ts).
//
// Layout (internal/abi, Go 1.21 and later, 64-bit): a Type is 48 bytes (size, ptrBytes,
// hash u32, tflag u8, align u8, fieldAlign u8, kind u8, equal, gcdata, str NameOff i32,
// ptrToThis i32); the kind-specific part follows (Ptr/Slice: elem; Map: key, elem;
// Struct: pkgPath Name, fields slice of {name Name, typ, offset}), then, with tflag 1,
// an UncommonType whose first word is the package path's NameOff. A Name is a flags byte
// (2 tag, 8 embedded), a varint length, the bytes, then the same for the tag. NameOffs
// count from the start of the types area, which the linker puts at the start of .rodata.

export type GoType =
  | { kind: 'bool' | 'int' | 'int8' | 'int16' | 'int32' | 'int64' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'float32' | 'float64' | 'string' | 'interface' | 'other'; name: string; pkg: string }
  | { kind: 'ptr' | 'array'; name: string; pkg: string; elem: GoType }
  | { kind: 'slice'; name: string; pkg: string; elem: GoType }
  | { kind: 'map'; name: string; pkg: string; key: GoType; elem: GoType }
  | { kind: 'struct'; name: string; pkg: string; fields: GoField[] };

export interface GoField {
  name: string;
  tag: string;
  embedded: boolean;
  type: GoType;
}

const kinds: Record<number, string> = {
  1: 'bool', 2: 'int', 3: 'int8', 4: 'int16', 5: 'int32', 6: 'int64', 7: 'uint', 8: 'uint8', 9: 'uint16',
  10: 'uint32', 11: 'uint64', 13: 'float32', 14: 'float64', 17: 'array', 20: 'interface', 21: 'map', 22: 'ptr',
  23: 'slice', 24: 'string', 25: 'struct',
};

interface Section { addr: number; offset: number; size: number }

function sections(data: Buffer): Map<string, Section> {
  if (data.readUInt32BE(0) !== 0x7f454c46 || data[4] !== 2 || data[5] !== 1) throw new Error('not a 64-bit little-endian ELF file');
  const shoff = Number(data.readBigUInt64LE(0x28));
  const shentsize = data.readUInt16LE(0x3a);
  const shnum = data.readUInt16LE(0x3c);
  const shstrndx = data.readUInt16LE(0x3e);
  const header = (i: number): { name: number; addr: number; offset: number; size: number } => {
    const at = shoff + i * shentsize;
    return {
      name: data.readUInt32LE(at),
      addr: Number(data.readBigUInt64LE(at + 0x10)),
      offset: Number(data.readBigUInt64LE(at + 0x18)),
      size: Number(data.readBigUInt64LE(at + 0x20)),
    };
  };
  const strtab = header(shstrndx);
  const out = new Map<string, Section>();
  for (let i = 0; i < shnum; i++) {
    const h = header(i);
    const start = strtab.offset + h.name;
    const name = data.toString('latin1', start, data.indexOf(0, start));
    out.set(name, { addr: h.addr, offset: h.offset, size: h.size });
  }
  return out;
}

export type NamedType = Extract<GoType, { kind: 'struct' | 'slice' }>;

/** The named struct and slice types of the binary, by "package/path.Name". */
export function goNamedTypes(binary: Uint8Array): Map<string, NamedType> {
  const data = Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength);
  const secs = sections(data);
  const rodata = secs.get('.rodata');
  if (rodata === undefined) throw new Error('no .rodata section');
  const mapped = [...secs.values()].filter((s) => s.addr !== 0 && s.size > 0);
  const fileOffset = (addr: number): number => {
    for (const s of mapped) if (addr >= s.addr && addr < s.addr + s.size) return s.offset + (addr - s.addr);
    throw new Error(`address 0x${addr.toString(16)} is in no section`);
  };
  const u64 = (addr: number): number => Number(data.readBigUInt64LE(fileOffset(addr)));

  const varint = (at: number): [number, number] => {
    let value = 0;
    let shift = 0;
    for (let i = 0; ; i++) {
      const b = data[at + i]!;
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) return [value, at + i + 1];
    }
  };
  /** A Name at a file offset: flags, name and tag. */
  const readName = (at: number): { flags: number; name: string; tag: string } => {
    const flags = data[at]!;
    const [length, start] = varint(at + 1);
    const name = data.toString('utf8', start, start + length);
    let tag = '';
    if (flags & 2) {
      const [tagLength, tagStart] = varint(start + length);
      tag = data.toString('utf8', tagStart, tagStart + tagLength);
    }
    return { flags, name, tag };
  };
  const nameOff = (off: number): string => readName(rodata.offset + off).name;

  const cache = new Map<number, GoType>();
  const typeAt = (addr: number): GoType => {
    const cached = cache.get(addr);
    if (cached !== undefined) return cached;
    const at = fileOffset(addr);
    const tflag = data[at + 20]!;
    const kind = kinds[data[at + 23]! & 0x1f] ?? 'other';
    let name = '';
    let pkg = '';
    if (tflag & 4) {
      // Named: the string is "pkg.Name" (with a '*' to drop when tflag has 2).
      const str = nameOff(data.readInt32LE(at + 40));
      name = (tflag & 2 ? str.slice(1) : str).replace(/^.*\./, '');
    }
    const extra = kind === 'struct' ? 80 : kind === 'ptr' || kind === 'slice' ? 56 : kind === 'map' ? 104 : kind === 'array' ? 72 : 48;
    if ((tflag & 4) && (tflag & 1) && kind !== 'map' && kind !== 'interface' && kind !== 'other') pkg = nameOff(data.readInt32LE(at + extra));
    let t: GoType;
    if (kind === 'ptr' || kind === 'slice' || kind === 'array') {
      const withElem = { kind, name, pkg, elem: undefined as unknown as GoType } as GoType & { elem: GoType };
      t = withElem;
      cache.set(addr, t);
      withElem.elem = typeAt(u64(addr + 48));
    } else if (kind === 'map') {
      t = { kind, name, pkg, key: undefined as unknown as GoType, elem: undefined as unknown as GoType };
      cache.set(addr, t);
      t.key = typeAt(u64(addr + 48));
      t.elem = typeAt(u64(addr + 56));
    } else if (kind === 'struct') {
      const fields: GoField[] = [];
      t = { kind, name, pkg, fields };
      cache.set(addr, t);
      const fieldsAddr = u64(addr + 56);
      const count = u64(addr + 64);
      for (let i = 0; i < count; i++) {
        const f = fieldsAddr + i * 24;
        const n = readName(fileOffset(u64(f)));
        fields.push({ name: n.name, tag: n.tag, embedded: (n.flags & 8) !== 0, type: typeAt(u64(f + 8)) });
      }
    } else {
      t = { kind: kind as 'other', name, pkg };
      cache.set(addr, t);
    }
    return t;
  };

  // Every struct type is reachable from .typelink (offsets of the types reflect can look
  // up: pointers, slices, maps...) through elements and fields.
  const out = new Map<string, NamedType>();
  const typelink = secs.get('.typelink');
  if (typelink === undefined) throw new Error('no .typelink section');
  const seen = new Set<GoType>();
  const visit = (t: GoType): void => {
    if (seen.has(t)) return;
    seen.add(t);
    if (t.kind === 'struct') {
      if (t.name !== '' && t.pkg !== '') out.set(`${t.pkg}.${t.name}`, t);
      for (const f of t.fields) visit(f.type);
    } else if (t.kind === 'ptr' || t.kind === 'slice' || t.kind === 'array') {
      if (t.kind === 'slice' && t.name !== '' && t.pkg !== '') out.set(`${t.pkg}.${t.name}`, t);
      visit(t.elem);
    }
    else if (t.kind === 'map') { visit(t.key); visit(t.elem); }
  };
  for (let i = 0; i < typelink.size; i += 4) {
    const off = data.readInt32LE(typelink.offset + i);
    try {
      visit(typeAt(rodata.addr + off));
    } catch {
      // An entry that does not decode is not a type this reader needs.
    }
  }
  return out;
}
