// Impersonation headers that name no user (auth/impersonation.ts): refused before the
// authorizer is asked, as v1.36's constrained impersonation filter refuses them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../src/api/index.ts';
import { impersonate, type Authorizer } from '../../src/auth/index.ts';

const bob = { name: 'bob', uid: '', groups: ['system:authenticated'] };

test('uid, groups or extras without a user name are a 400 naming the user asked for, as Go\'s %#v', async () => {
  const cases: { name: string; headers: string[]; message: string }[] = [
    {
      name: 'a group', headers: ['Impersonate-Group', 'dev'],
      message: 'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"dev"}, Extra:map[string][]string(nil)} without impersonating a user name',
    },
    {
      name: 'a uid', headers: ['Impersonate-Uid', 'u-1'],
      message: 'requested &user.DefaultInfo{Name:"", UID:"u-1", Groups:[]string(nil), Extra:map[string][]string(nil)} without impersonating a user name',
    },
    {
      name: 'an empty user name, groups and extras (keys unescaped, lower-cased and sorted)',
      headers: ['Impersonate-User', '', 'Impersonate-Group', 'a', 'Impersonate-Group', 'b"c', 'Impersonate-Extra-Scopes', 'x', 'Impersonate-Extra-Example.com%2Freason', 'y', 'Impersonate-Extra-scopes', 'z'],
      message: 'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"a", "b\\"c"}, Extra:map[string][]string{"example.com/reason":[]string{"y"}, "scopes":[]string{"x", "z"}}} without impersonating a user name',
    },
  ];
  for (const c of cases) {
    const asked: string[] = [];
    const authorizer: Authorizer = { authorize: (_user, a) => (asked.push(a.resource), { decision: 'Allow' }) };
    const err = await impersonate(bob, c.headers, authorizer).then(() => undefined, (e: unknown) => e);
    assert.ok(isStatusError(err), c.name);
    assert.equal(err.code, 400, c.name);
    assert.equal(err.reason, 'BadRequest', c.name);
    assert.equal(err.message, c.message, c.name);
    assert.deepEqual(asked, [], `${c.name}: the authorizer is not asked`);
  }
});
