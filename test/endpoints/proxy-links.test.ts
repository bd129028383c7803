// What upstream's proxy transport does to the links of an answer: URLs to the backend (or to
// the server's own host) become paths under the proxy, others stay; an HTML page's start
// tags are written again as Go writes them, their URL attributes rewritten; gzip and raw
// deflate pages are read and written in their encoding. Cases after apimachinery's
// TestProxyTransport, with kube-apiserver's transport (no scheme or host of its own).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { isHtml, proxiedUrl, RewriteError, rewriteHtmlLinks, rewrittenHtmlBody, type ProxyPlace } from '../../src/endpoints/proxy-links.ts';

const place: ProxyPlace = { prefix: '/proxy/node/node1:10250', backend: new URL('http://mynode.com/logs/log.log'), requestHost: '10.0.0.1:8001' };
const rewrite = (url: string) => proxiedUrl(url, place);
const page = (html: string) => rewriteHtmlLinks(Buffer.from(html), rewrite).toString();

test('a URL to the backend or the server becomes a path under the proxy; relative and foreign ones stay', () => {
  assert.equal(rewrite('/google.log'), '/proxy/node/node1:10250/google.log');
  assert.equal(rewrite('/google.log/'), '/proxy/node/node1:10250/google.log/', 'the trailing slash kept');
  assert.equal(rewrite('http://mynode.com/kubernetes.js?v=1#top'), '/proxy/node/node1:10250/kubernetes.js?v=1#top');
  assert.equal(rewrite('http://10.0.0.1:8001/redirected/target/'), 'http://10.0.0.1:8001/proxy/node/node1:10250/redirected/target/', 'the server\'s own host stays named');
  assert.equal(rewrite('/proxy/node/node1:10250/already'), '/proxy/node/node1:10250/already');
  for (const kept of ['kubelet.log', '../up', 'http://google.com/kubernetes.js', '//cdn.example/x.js', '#frag', '?q=1', 'javascript:void(0)', 'mailto:a@b', 'http://mynode.com']) {
    assert.equal(rewrite(kept), kept);
  }
});

test('an HTML page\'s URL attributes are rewritten, as upstream\'s table names them', () => {
  assert.equal(page('<pre><a href="kubelet.log">kubelet.log</a><a href="/google.log">google.log</a></pre>'),
    '<pre><a href="kubelet.log">kubelet.log</a><a href="/proxy/node/node1:10250/google.log">google.log</a></pre>');
  assert.equal(page('<html><header></header><body><pre><img src="kubernetes.jpg"/><img src="/kubernetes_abs.jpg"/></pre></body></html>'),
    '<html><header></header><body><pre><img src="kubernetes.jpg"/><img src="/proxy/node/node1:10250/kubernetes_abs.jpg"/></pre></body></html>');
  assert.equal(page('<script src="http://google.com/kubernetes.js"/>'), '<script src="http://google.com/kubernetes.js"/>');
  assert.equal(page('<script src="http://mynode.com/kubernetes.js"/>'), '<script src="/proxy/node/node1:10250/kubernetes.js"/>');
  // A script is a raw text element even when written self-closing: what follows is its text.
  assert.equal(page('<script src="/a.js"/><img src="/b.png"></script><img src="/c.png">'), '<script src="/proxy/node/node1:10250/a.js"/><img src="/b.png"></script><img src="/proxy/node/node1:10250/c.png">');
  assert.equal(page('<form action=/submit method=post><button formaction="/b">go</button></form><link href=/s.css rel=stylesheet><video poster="/p.png" src="/v.mp4">'),
    '<form action="/proxy/node/node1:10250/submit" method="post"><button formaction="/proxy/node/node1:10250/b">go</button></form><link href="/proxy/node/node1:10250/s.css" rel="stylesheet"><video poster="/proxy/node/node1:10250/p.png" src="/proxy/node/node1:10250/v.mp4">');
  // Attributes not in the table, and elements not in it, keep their values.
  assert.equal(page('<a data-href="/x" title=/y><div src="/z">'), '<a data-href="/x" title="/y"><div src="/z">');
});

test('every start tag is written as Go writes a token; everything else passes as it came', () => {
  assert.equal(page('<!DOCTYPE html>\n<P CLASS=\'a\' Data-X=1 hidden>x &amp; y</P><!-- <a href="/c"> -->'),
    '<!DOCTYPE html>\n<p class="a" data-x="1" hidden="">x &amp; y</P><!-- <a href="/c"> -->');
  // Values are unescaped when read and escaped when written: an entity may come back as its character.
  assert.equal(page('<a href="/q?a=1&amp;b=2" title="&copy; &quot;x&quot;">'), '<a href="/proxy/node/node1:10250/q?a=1&amp;b=2" title="© &#34;x&#34;">');
  // A script's or a textarea's content is text, whatever it looks like; a repeated attribute is dropped.
  assert.equal(page('<script>document.write(\'<a href="/x">\')</script><textarea><a href="/y"></textarea><a href="/z" href="/w">'),
    '<script>document.write(\'<a href="/x">\')</script><textarea><a href="/y"></textarea><a href="/proxy/node/node1:10250/z">');
  // A tag the page ends inside is dropped, as upstream's tokenizer stops there.
  assert.equal(page('<p>cut<a href="/x"'), '<p>cut');
});

test('only a text/html answer is rewritten', () => {
  assert.equal(isHtml('text/html'), true);
  assert.equal(isHtml(' text/html ; charset=utf-8'), true);
  for (const other of [undefined, '', 'text/plain', 'application/xhtml+xml', 'Text/HTML']) assert.equal(isHtml(other), false, String(other));
});

test('gzip and raw deflate pages are rewritten in their encoding; other encodings pass; a body that does not decode is Go\'s error', async () => {
  const html = `<a href="/google.log">${'long body test'.repeat(4097)}</a>`;
  const expected = page(html);
  const gzipped = await rewrittenHtmlBody(zlib.gzipSync(html), 'gzip', rewrite);
  assert.equal(zlib.gunzipSync(gzipped!).toString(), expected);
  const deflated = await rewrittenHtmlBody(zlib.deflateRawSync(html), 'deflate', rewrite);
  assert.equal(zlib.inflateRawSync(deflated!).toString(), expected);
  assert.equal((await rewrittenHtmlBody(Buffer.from(html), '', rewrite))!.toString(), expected);
  assert.equal(await rewrittenHtmlBody(Buffer.from(html), 'br', rewrite), undefined);
  const failure = async (body: Buffer, encoding: string) => {
    try {
      await rewrittenHtmlBody(body, encoding, rewrite);
    } catch (err) {
      assert.ok(err instanceof RewriteError);
      return err.message;
    }
    assert.fail('expected a failure');
  };
  assert.equal(await failure(Buffer.alloc(0), 'gzip'), 'errorf making gzip reader: EOF');
  assert.equal(await failure(Buffer.from('<html>plain</html>'), 'gzip'), 'errorf making gzip reader: gzip: invalid header');
  assert.equal(await failure(zlib.gzipSync(html).subarray(0, 40), 'gzip'), 'unexpected EOF');
  const corrupt = zlib.gzipSync('<p>x</p>');
  corrupt[corrupt.length - 5]! ^= 0xff;
  assert.equal(await failure(corrupt, 'gzip'), 'gzip: invalid checksum');
  // A page that inflates past the bound (256 MiB by default) is refused, not read into memory.
  try {
    await rewrittenHtmlBody(zlib.deflateRawSync(Buffer.alloc(1 << 20)), 'deflate', rewrite, 1 << 16);
    assert.fail('expected a failure');
  } catch (err) {
    assert.equal((err as Error).message, 'the page inflates past 65536 bytes');
  }
});
