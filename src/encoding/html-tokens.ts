// HTML split into tokens as Go's golang.org/x/net/html Tokenizer splits it, which is what
// kube-apiserver's proxies read answers with: text, start, end and self-closing tags,
// comments and doctypes, each with its raw bytes (the tokens partition the input, up to an
// unfinished tag at the end, which Go drops). Raw text elements (script, style, title,
// textarea and the rest) hold everything up to their end tag, as Go's tokenizer sees them
// without a parser; CDATA sections are bogus comments. Start tags are read into a name and
// attributes (lower-cased, values unescaped, a repeated attribute dropped), and can be
// written back as Go's Token.String() writes them.

import { decodeHTMLAttribute } from 'entities';

export interface HtmlAttribute {
  key: string;
  value: string;
}

export type HtmlToken =
  | { type: 'text' | 'endTag' | 'comment' | 'doctype'; raw: Uint8Array }
  | { type: 'startTag' | 'selfClosingTag'; raw: Uint8Array; name: string; attributes: HtmlAttribute[] };

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const DASH = 0x2d;
const EQUALS = 0x3d;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c;
const isLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const lowerByte = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/** The start tags after which Go's tokenizer reads raw text up to the matching end tag. */
const rawTextTags = new Set(['iframe', 'noembed', 'noframes', 'noscript', 'plaintext', 'script', 'style', 'textarea', 'title', 'xmp']);

const utf8 = new TextDecoder();

/** Go's lower: ASCII letters only. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

/** "\r\n" and a lone "\r" as "\n", as Go's tokenizer reads attribute values. */
function convertNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** NUL as U+FFFD, as Go's tokenizer reads tag names and attributes. */
function replaceNul(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}

/** The tokens of `html`, in order. */
export function* htmlTokens(html: Uint8Array): Generator<HtmlToken> {
  const tokenizer = new Tokenizer(html);
  for (let token = tokenizer.next(); token !== undefined; token = tokenizer.next()) yield token;
}

class Tokenizer {
  readonly #buf: Uint8Array;
  /** Where the next byte is read (Go's raw.end). */
  #pos = 0;
  /** Where the current token starts (Go's raw.start). */
  #start = 0;
  #eof = false;
  /** The raw text element whose content comes next ('' when none). */
  #rawTag = '';
  #nameStart = 0;
  #nameEnd = 0;
  /** The current tag's attributes kept: key start, key end, value start, value end. */
  #attributes: [number, number, number, number][] = [];
  #attributeNames = new Set<string>();
  #keyStart = 0;
  #keyEnd = 0;
  #valueStart = 0;
  #valueEnd = 0;

  constructor(buf: Uint8Array) {
    this.#buf = buf;
  }

  /** The next byte, or -1 at the end (which then holds). */
  #read(): number {
    if (this.#pos >= this.#buf.length) {
      this.#eof = true;
      return -1;
    }
    return this.#buf[this.#pos++]!;
  }

  #raw(): Uint8Array {
    return this.#buf.subarray(this.#start, this.#pos);
  }

  #simple(type: 'text' | 'endTag' | 'comment' | 'doctype'): HtmlToken {
    return { type, raw: this.#raw() };
  }

  next(): HtmlToken | undefined {
    this.#start = this.#pos;
    if (this.#eof) return undefined;
    if (this.#rawTag !== '') {
      if (this.#rawTag === 'plaintext') {
        this.#pos = this.#buf.length;
        this.#eof = true;
        this.#rawTag = '';
      } else {
        this.#readRawOrRcdata();
      }
      if (this.#pos > this.#start) return this.#simple('text');
    }
    for (;;) {
      let c = this.#read();
      if (c < 0) break;
      if (c !== LT) continue;
      c = this.#read();
      if (c < 0) break;
      let kind: 'startTag' | 'endTag' | 'comment';
      if (isLetter(c)) kind = 'startTag';
      else if (c === SLASH) kind = 'endTag';
      else if (c === BANG || c === QUESTION) kind = 'comment';
      else {
        this.#pos--;
        continue;
      }
      // Text read before the tag comes first; the tag is read again by the next call.
      if (this.#pos - 2 > this.#start) {
        this.#pos -= 2;
        return this.#simple('text');
      }
      if (kind === 'startTag') return this.#readStartTag();
      if (kind === 'endTag') {
        c = this.#read();
        if (c < 0) break;
        // "</>" is no token at all: an empty comment carries its bytes.
        if (c === GT) return this.#simple('comment');
        if (isLetter(c)) {
          this.#readTag(false);
          return this.#eof ? undefined : this.#simple('endTag');
        }
        this.#pos--;
        this.#readUntilCloseAngle();
        return this.#simple('comment');
      }
      if (c === BANG) return this.#readMarkupDeclaration();
      this.#pos--;
      this.#readUntilCloseAngle();
      return this.#simple('comment');
    }
    return this.#pos > this.#start ? this.#simple('text') : undefined;
  }

  #skipSpace(): void {
    if (this.#eof) return;
    for (;;) {
      const c = this.#read();
      if (c < 0) return;
      if (!isSpace(c)) {
        this.#pos--;
        return;
      }
    }
  }

  #readRawOrRcdata(): void {
    if (this.#rawTag === 'script') {
      this.#readScript();
      this.#rawTag = '';
      return;
    }
    for (;;) {
      let c = this.#read();
      if (c < 0) break;
      if (c !== LT) continue;
      c = this.#read();
      if (c < 0) break;
      if (c !== SLASH) {
        this.#pos--;
        continue;
      }
      if (this.#readRawEndTag() || this.#eof) break;
    }
    this.#rawTag = '';
  }

  /** After "</": whether the raw text element's end tag follows (then read again by the next call). */
  #readRawEndTag(): boolean {
    const tag = this.#rawTag;
    for (let i = 0; i < tag.length; i++) {
      const c = this.#read();
      if (c < 0) return false;
      if (lowerByte(c) !== tag.charCodeAt(i)) {
        this.#pos--;
        return false;
      }
    }
    const c = this.#read();
    if (c < 0) return false;
    if (isSpace(c) || c === SLASH || c === GT) {
      this.#pos -= 3 + tag.length;
      return true;
    }
    this.#pos--;
    return false;
  }

  /** A script's content up to its end tag, by the specification's script data states (escaped, double escaped). */
  #readScript(): void {
    let state = 'data';
    for (;;) {
      if (state === 'endTagOpen' || state === 'escapedEndTagOpen') {
        if (this.#readRawEndTag() || this.#eof) return;
        state = state === 'endTagOpen' ? 'data' : 'escaped';
        continue;
      }
      if (state === 'doubleEscapeEnd') {
        if (this.#readRawEndTag()) {
          this.#pos += '</script>'.length;
          state = 'escaped';
          continue;
        }
        if (this.#eof) return;
        state = 'doubleEscaped';
        continue;
      }
      if (state === 'doubleEscapeStart') {
        this.#pos--;
        let matched = true;
        for (let i = 0; i < 'script'.length; i++) {
          const c = this.#read();
          if (c < 0) return;
          if (lowerByte(c) !== 'script'.charCodeAt(i)) {
            this.#pos--;
            matched = false;
            break;
          }
        }
        if (!matched) {
          state = 'escaped';
          continue;
        }
        const c = this.#read();
        if (c < 0) return;
        if (isSpace(c) || c === SLASH || c === GT) state = 'doubleEscaped';
        else {
          this.#pos--;
          state = 'escaped';
        }
        continue;
      }
      const c = this.#read();
      if (c < 0) return;
      switch (state) {
        case 'data':
          if (c === LT) state = 'lessThan';
          break;
        case 'lessThan':
          if (c === SLASH) state = 'endTagOpen';
          else if (c === BANG) state = 'escapeStart';
          else {
            this.#pos--;
            state = 'data';
          }
          break;
        case 'escapeStart':
        case 'escapeStartDash':
          if (c === DASH) state = state === 'escapeStart' ? 'escapeStartDash' : 'escapedDashDash';
          else {
            this.#pos--;
            state = 'data';
          }
          break;
        case 'escaped':
        case 'escapedDash':
          if (c === DASH) state = state === 'escaped' ? 'escapedDash' : 'escapedDashDash';
          else if (c === LT) state = 'escapedLessThan';
          else state = 'escaped';
          break;
        case 'escapedDashDash':
          if (c === LT) state = 'escapedLessThan';
          else if (c === GT) state = 'data';
          else if (c !== DASH) state = 'escaped';
          break;
        case 'escapedLessThan':
          if (c === SLASH) state = 'escapedEndTagOpen';
          else if (isLetter(c)) state = 'doubleEscapeStart';
          else {
            this.#pos--;
            state = 'data';
          }
          break;
        case 'doubleEscaped':
        case 'doubleEscapedDash':
          if (c === DASH) state = state === 'doubleEscaped' ? 'doubleEscapedDash' : 'doubleEscapedDashDash';
          else if (c === LT) state = 'doubleEscapedLessThan';
          else state = 'doubleEscaped';
          break;
        case 'doubleEscapedDashDash':
          if (c === LT) state = 'doubleEscapedLessThan';
          else if (c === GT) state = 'data';
          else if (c !== DASH) state = 'doubleEscaped';
          break;
        case 'doubleEscapedLessThan':
          if (c === SLASH) state = 'doubleEscapeEnd';
          else {
            this.#pos--;
            state = 'doubleEscaped';
          }
          break;
      }
    }
  }

  /** After "<!--": up to "-->", "--!>", or "<!-->" at once. */
  #readComment(): void {
    let dashes = 0;
    let beginning = true;
    for (;;) {
      let c = this.#read();
      if (c < 0) return;
      if (c === DASH) {
        dashes++;
        continue;
      }
      if (c === GT && (dashes >= 2 || beginning)) return;
      if (c === BANG && dashes >= 2) {
        c = this.#read();
        if (c < 0 || c === GT) return;
        if (c === DASH) {
          dashes = 1;
          beginning = false;
          continue;
        }
      }
      dashes = 0;
      beginning = false;
    }
  }

  #readUntilCloseAngle(): void {
    for (;;) {
      const c = this.#read();
      if (c < 0 || c === GT) return;
    }
  }

  /** After "<!": a comment, a doctype, or a bogus comment up to ">". */
  #readMarkupDeclaration(): HtmlToken {
    const first = this.#read();
    const second = first < 0 ? -1 : this.#read();
    if (second < 0) return this.#simple('comment');
    if (first === DASH && second === DASH) {
      this.#readComment();
      return this.#simple('comment');
    }
    this.#pos -= 2;
    if (this.#readDoctype()) return this.#simple('doctype');
    this.#readUntilCloseAngle();
    return this.#simple('comment');
  }

  #readDoctype(): boolean {
    const at = this.#pos;
    for (const expected of 'doctype') {
      const c = this.#read();
      if (c < 0) {
        // Read again as a bogus comment up to the end.
        this.#eof = false;
        this.#pos = at;
        return false;
      }
      if (lowerByte(c) !== expected.charCodeAt(0)) {
        this.#pos = at;
        return false;
      }
    }
    this.#skipSpace();
    if (!this.#eof) this.#readUntilCloseAngle();
    return true;
  }

  /** After "<" and a letter; undefined when the input ends inside the tag (Go's error token). */
  #readStartTag(): HtmlToken | undefined {
    this.#readTag(true);
    if (this.#eof) return undefined;
    const buf = this.#buf;
    const name = replaceNul(asciiLower(utf8.decode(buf.subarray(this.#nameStart, this.#nameEnd))));
    if (rawTextTags.has(name)) this.#rawTag = name;
    const attributes = this.#attributes.map(([keyStart, keyEnd, valueStart, valueEnd]) => ({
      key: replaceNul(asciiLower(utf8.decode(buf.subarray(keyStart, keyEnd)))),
      value: decodeHTMLAttribute(convertNewlines(replaceNul(utf8.decode(buf.subarray(valueStart, valueEnd))))),
    }));
    // Self-closing when "/" comes right before ">", unless it ends an unquoted value (`<p a=/>`).
    const last = this.#attributes.at(-1);
    const selfClosing = buf[this.#pos - 2] === SLASH && (last === undefined || this.#pos - 2 !== last[3] - 1);
    return { type: selfClosing ? 'selfClosingTag' : 'startTag', raw: this.#raw(), name, attributes };
  }

  /** A tag's name and attributes, up to its ">"; after "<a" or "</a". */
  #readTag(keep: boolean): void {
    this.#attributes = [];
    this.#attributeNames.clear();
    this.#readTagName();
    this.#skipSpace();
    if (this.#eof) return;
    for (;;) {
      const c = this.#read();
      if (c < 0 || c === GT) break;
      this.#pos--;
      this.#readAttributeKey();
      this.#readAttributeValue();
      const key = asciiLower(utf8.decode(this.#buf.subarray(this.#keyStart, this.#keyEnd)));
      if (keep && this.#keyStart !== this.#keyEnd && !this.#attributeNames.has(key)) {
        this.#attributes.push([this.#keyStart, this.#keyEnd, this.#valueStart, this.#valueEnd]);
        this.#attributeNames.add(key);
      }
      this.#skipSpace();
      if (this.#eof) break;
    }
  }

  #readTagName(): void {
    this.#nameStart = this.#pos - 1;
    for (;;) {
      const c = this.#read();
      if (c < 0) {
        this.#nameEnd = this.#pos;
        return;
      }
      if (isSpace(c)) {
        this.#nameEnd = this.#pos - 1;
        return;
      }
      if (c === SLASH || c === GT) {
        this.#pos--;
        this.#nameEnd = this.#pos;
        return;
      }
    }
  }

  #readAttributeKey(): void {
    this.#keyStart = this.#pos;
    for (;;) {
      const c = this.#read();
      if (c < 0) {
        this.#keyEnd = this.#pos;
        return;
      }
      // An "=" before the name begins is part of the name.
      if (c === EQUALS && this.#keyStart + 1 === this.#pos) continue;
      if (c === EQUALS || isSpace(c) || c === SLASH || c === GT) {
        this.#pos--;
        this.#keyEnd = this.#pos;
        return;
      }
    }
  }

  #readAttributeValue(): void {
    this.#valueStart = this.#pos;
    this.#valueEnd = this.#pos;
    this.#skipSpace();
    if (this.#eof) return;
    let c = this.#read();
    if (c < 0 || c === SLASH) return;
    if (c !== EQUALS) {
      this.#pos--;
      return;
    }
    this.#skipSpace();
    if (this.#eof) return;
    const quote = this.#read();
    if (quote < 0) return;
    if (quote === GT) {
      this.#pos--;
      return;
    }
    if (quote === 0x22 || quote === 0x27) {
      this.#valueStart = this.#pos;
      for (;;) {
        c = this.#read();
        if (c < 0) {
          this.#valueEnd = this.#pos;
          return;
        }
        if (c === quote) {
          this.#valueEnd = this.#pos - 1;
          return;
        }
      }
    }
    this.#valueStart = this.#pos - 1;
    for (;;) {
      c = this.#read();
      if (c < 0) {
        this.#valueEnd = this.#pos;
        return;
      }
      if (isSpace(c)) {
        this.#valueEnd = this.#pos - 1;
        return;
      }
      if (c === GT) {
        this.#pos--;
        this.#valueEnd = this.#pos;
        return;
      }
    }
  }
}

/** Go's html escape: the characters an attribute value may not hold as they are. */
function escapeValue(value: string): string {
  return value.replace(/[&'<>"\r]/g, (c) => (c === '&' ? '&amp;' : c === "'" ? '&#39;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&#34;' : '&#13;'));
}

/** A start or self-closing tag as Go's Token.String() writes it. */
export function startTagString(name: string, attributes: readonly HtmlAttribute[], selfClosing: boolean): string {
  let text = `<${name}`;
  for (const { key, value } of attributes) text += ` ${key}="${escapeValue(value)}"`;
  return `${text}${selfClosing ? '/>' : '>'}`;
}
