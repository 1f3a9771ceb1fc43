import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLoopbackUrl } from '../../../../src/wing/providers/index.js';

test('loopback: decided on the parsed URL — every IPv4 spelling of 127/8, ::1, localhost', () => {
  for (const url of [
    'http://127.0.0.1:11434',
    'http://localhost:11434/api/chat',
    'http://LOCALHOST',
    'http://127.1',
    'http://0x7f.0.0.1',
    'http://2130706433/',
    'http://127.255.255.254',
    'http://[::1]:11434',
    'http://[0:0:0:0:0:0:0:1]',
    'http://[::ffff:127.0.0.1]',
  ]) {
    assert.equal(isLoopbackUrl(url), true, url);
  }
});

test('loopback: anything the rule cannot prove local is remote', () => {
  for (const url of [
    'https://api.openai.com/v1',
    'http://127.0.0.1@example.com/',
    'http://127.0.0.1.nip.io/',
    'http://localhost.localdomain:11434',
    // RFC 6761 says resolvers answer *.localhost with loopback, but glibc asks DNS for it (issue 20.1)
    'http://ollama.localhost:8080',
    'http://vm:11434', // a hosts-file name for 127.0.0.1 here: not provable from the URL
    'http://0.0.0.0:11434',
    'http://10.0.0.1',
    'http://[::2]',
    'http://[::ffff:10.0.0.1]',
    'file:///etc/passwd',
    'not a url',
    'http://128.0.0.1',
  ]) {
    assert.equal(isLoopbackUrl(url), false, url);
  }
});
