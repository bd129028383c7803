import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WeighedCache } from '../../src/api/weighed-cache.ts';

test('the oldest entries go first when the keys\' total length is over its bound', () => {
  const cache = new WeighedCache<number>(100, 10);
  cache.set('aaaa', 1);
  cache.set('bbbb', 2);
  assert.equal(cache.chars, 8);
  cache.set('cccc', 3);
  assert.equal(cache.get('aaaa'), undefined);
  assert.equal(cache.get('bbbb'), 2);
  assert.equal(cache.get('cccc'), 3);
  assert.equal(cache.chars, 8);
});

test('and when there are more entries than its bound', () => {
  const cache = new WeighedCache<number>(2, 1000);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('a', 10);
  cache.set('c', 3);
  assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], [10, undefined, 3], 'setting again makes an entry the newest');
  assert.equal(cache.size, 2);
  assert.equal(cache.chars, 2);
});

test('a key longer than the bound is not kept, and keeps what was there', () => {
  const cache = new WeighedCache<number>(10, 5);
  cache.set('ab', 1);
  cache.set('abcdef', 2);
  assert.equal(cache.get('abcdef'), undefined);
  assert.equal(cache.get('ab'), 1);
});
