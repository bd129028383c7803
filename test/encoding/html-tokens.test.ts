// HTML split as Go's x/net/html Tokenizer splits it (what kube-apiserver's proxies read pages
// with): the tokens' raw bytes partition the input, raw text elements and comments hide tags,
// start tags come with lower-cased names and unescaped attributes, written back as Go writes
// a token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { htmlTokens, startTagString, type HtmlToken } from '../../src/encoding/html-tokens.ts';

const tokens = (html: string): HtmlToken[] => [...htmlTokens(Buffer.from(html))];
const raws = (html: string) => tokens(html).map((t) => `${t.type}:${Buffer.from(t.raw).toString()}`);
const tags = (html: string) => tokens(html).flatMap((t) => (t.type === 'startTag' || t.type === 'selfClosingTag' ? [{ type: t.type, name: t.name, attributes: t.attributes }] : []));

test('text, tags, comments and doctypes each carry their raw bytes', () => {
  assert.deepEqual(raws('<!DOCTYPE html><html><body class=x>a &amp; b</body><!-- c --></html>'), [
    'doctype:<!DOCTYPE html>', 'startTag:<html>', 'startTag:<body class=x>', 'text:a &amp; b', 'endTag:</body>', 'comment:<!-- c -->', 'endTag:</html>',
  ]);
  // "</>" is an empty comment; "<?…>" and "<!…>" bogus comments; "< " and "<3" text.
  assert.deepEqual(raws('a</>b<?xml version="1.0"?><![CDATA[x]]>1 < 2 <3'), ['text:a', 'comment:</>', 'text:b', 'comment:<?xml version="1.0"?>', 'comment:<![CDATA[x]]>', 'text:1 < 2 <3']);
  // A comment ends at "-->", "--!>", or at once for "<!-->".
  assert.deepEqual(raws('<!-->x<!-- a -- b --!>y'), ['comment:<!-->', 'text:x', 'comment:<!-- a -- b --!>', 'text:y']);
});

test('a start tag\'s name and attribute keys are lower-cased, its values unescaped, a repeated attribute dropped', () => {
  assert.deepEqual(tags('<A HREF=\'/x?a=1&amp;b=2\' Title="&lt;&copy;&#x41;&ampx" data-v=plain checked href="/y">'), [{
    type: 'startTag', name: 'a',
    attributes: [{ key: 'href', value: '/x?a=1&b=2' }, { key: 'title', value: '<©A&ampx' }, { key: 'data-v', value: 'plain' }, { key: 'checked', value: '' }],
  }]);
  // "\r\n" and "\r" are newlines in a value; NUL is U+FFFD.
  assert.deepEqual(tags('<p a="1\r\n2\r3" b="\0">')[0]!.attributes, [{ key: 'a', value: '1\n2\n3' }, { key: 'b', value: '\uFFFD' }]);
});

test('self-closing tags, and a "/" that ends an unquoted value instead', () => {
  assert.deepEqual(tags('<br/><img src=/logo.png /><p a=/>').map((t) => [t.type, t.name, t.attributes]), [
    ['selfClosingTag', 'br', []],
    ['selfClosingTag', 'img', [{ key: 'src', value: '/logo.png' }]],
    ['startTag', 'p', [{ key: 'a', value: '/' }]],
  ]);
});

test('raw text elements hold everything up to their end tag, in any case; scripts follow the escaped states', () => {
  assert.deepEqual(raws('<title><a href="/x"></title>'), ['startTag:<title>', 'text:<a href="/x">', 'endTag:</title>']);
  assert.deepEqual(raws('<textarea></textareax></TEXTAREA >'), ['startTag:<textarea>', 'text:</textareax>', 'endTag:</TEXTAREA >']);
  assert.deepEqual(raws('<script>if (a<b) x = "<a href=\'/y\'>";</script><a>'), ['startTag:<script>', 'text:if (a<b) x = "<a href=\'/y\'>";', 'endTag:</script>', 'startTag:<a>']);
  // Inside "<!--" a "<script>" opens a double escape, whose "</script>" does not end the script.
  assert.deepEqual(raws('<script><!--<script></script>--></script>x'), ['startTag:<script>', 'text:<!--<script></script>-->', 'endTag:</script>', 'text:x']);
  assert.deepEqual(raws('<style></style><plaintext></plaintext><a>'), ['startTag:<style>', 'endTag:</style>', 'startTag:<plaintext>', 'text:</plaintext><a>']);
});

test('a tag the input ends inside is dropped, as Go\'s tokenizer ends with an error there', () => {
  assert.deepEqual(raws('<p>hi<a href="/x"'), ['startTag:<p>', 'text:hi']);
  assert.deepEqual(raws('x</p'), ['text:x']);
  assert.deepEqual(raws('x</'), ['text:x', 'text:</']);
  assert.deepEqual(raws('<!DOC'), ['comment:<!DOC']);
});

test('the tokens\' raw bytes partition the input, up to a dropped unfinished tag', () => {
  const pieces = fc.constantFrom('<', '>', '/', '!', '-', '?', '=', '"', '\'', ' ', 'a', 'A', 'p', 'script', 'style', 'title', 'doctype', '&amp;', '\r\n', 'é');
  fc.assert(fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
    const input = parts.join('');
    const joined = Buffer.concat(tokens(input).map((t) => t.raw)).toString();
    assert.ok(input.startsWith(joined), `${JSON.stringify(joined)} is not a prefix of ${JSON.stringify(input)}`);
    if (joined.length < input.length) assert.match(input.slice(joined.length), /^<\/?[a-z]/i, 'only an unfinished tag is dropped');
  }), { numRuns: 2000 });
});

test('a start tag written as Go\'s Token.String() writes it: values quoted and escaped', () => {
  assert.equal(startTagString('a', [{ key: 'href', value: '/x?a=1&b=2' }, { key: 'title', value: '"it\'s" <b>\r' }], false), '<a href="/x?a=1&amp;b=2" title="&#34;it&#39;s&#34; &lt;b&gt;&#13;">');
  assert.equal(startTagString('br', [], true), '<br/>');
});
