/**
 * kube-apiserver's TLS serving flags: --tls-min-version, --tls-cipher-suites,
 * --tls-sni-cert-key and --cert-dir (src/server/tls-settings.ts,
 * serving-certificates.ts), over real handshakes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions, type PeerCertificate } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { BIN, ROOT, startTestServer, type TestServer } from './helpers/server.ts';
import { issue, makeCa, type Issued } from './helpers/pki.ts';
import { parseFlags } from '../src/cli/flags.ts';
import { ServingCertificates, certificateNames } from '../src/server/serving-certificates.ts';
import { parseNamedCertKey } from '../src/server/tls-settings.ts';

const dir = mkdtempSync(join(tmpdir(), 'orch-tls-flags-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A handshake with the server: the certificate and cipher it chose, or the error that ended it. */
function handshake(url: string, options: ConnectionOptions): Promise<{ cert?: PeerCertificate; cipher?: string; protocol?: string | null; error?: Error }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false, ...options });
    socket.once('secureConnect', () => {
      resolve({ cert: socket.getPeerCertificate(), cipher: socket.getCipher().name, protocol: socket.getProtocol() });
      socket.destroy();
    });
    socket.once('error', (error) => resolve({ error }));
  });
}

function writePair(name: string, leaf: Issued, chain = ''): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  writeFileSync(cert, leaf.certPem + chain);
  writeFileSync(key, leaf.keyPem);
  return { cert, key };
}

function flagError(args: string[]): string {
  try {
    parseFlags(args);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

describe('flag values', () => {
  test('an unknown TLS version, an unknown cipher suite and one this OpenSSL lacks are refused with upstream wording', () => {
    assert.equal(flagError(['--tls-min-version=VersionTLS9']), 'invalid argument "VersionTLS9" for "--tls-min-version" flag: unknown tls version "VersionTLS9"');
    assert.match(flagError(['--tls-cipher-suites=TLS_NOPE']), /Cipher suite TLS_NOPE not supported or doesn't exist/);
    assert.match(flagError(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_RC4_128_SHA']), /TLS_RSA_WITH_RC4_128_SHA is not available in this server's TLS library/);
    assert.match(flagError(['--tls-sni-cert-key=only.crt']), /expected comma separated certificate and key file paths/);
    assert.match(flagError(['--tls-sni-cert-key=a.crt,b.key:']), /empty names list is not allowed/);
  });

  test('names and files of --tls-sni-cert-key, and the ciphers Node gets', () => {
    assert.deepEqual(parseNamedCertKey(' a.crt , a.key : *.foo.com, foo.com'), { certFile: 'a.crt', keyFile: 'a.key', names: ['*.foo.com', 'foo.com'] });
    const flags = parseFlags(['--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256', '--tls-cipher-suites=TLS_RSA_WITH_AES_128_CBC_SHA256', '--tls-sni-cert-key=x.crt,x.key', '--tls-sni-cert-key=y.crt,y.key:y.test']);
    assert.ok(flags !== 'help');
    // TLS 1.3 suites are always offered, as Go offers them; the TLS 1.2 ones in the order given.
    assert.equal(flags.tlsCiphers, 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-ECDSA-AES128-GCM-SHA256:AES128-SHA256');
    assert.deepEqual(flags.insecureCipherSuites, ['TLS_RSA_WITH_AES_128_CBC_SHA256']);
    assert.deepEqual(flags.tlsSniCertKeys.map((k) => k.certFile), ['x.crt', 'y.crt']);
    const legacy = parseFlags(['--tls-min-version=VersionTLS10']);
    assert.ok(legacy !== 'help');
    assert.equal(legacy.tlsMinVersion, 'TLSv1');
    assert.equal(legacy.tlsCiphers, 'DEFAULT:@SECLEVEL=0');
  });

  test("a certificate's own names: a domain CN and the DNS names, never an IP", () => {
    const ca = makeCa('names-ca');
    assert.deepEqual(certificateNames(issue(ca, { commonName: 'api.example' }, { usages: ['serverAuth'], hosts: ['alt.example', '*.wild.example', '10.0.0.1'] }).certPem), ['api.example', 'alt.example', '*.wild.example']);
    assert.deepEqual(certificateNames(issue(ca, { commonName: '10.0.0.2' }, { usages: ['serverAuth'], hosts: ['x.example'] }).certPem), ['x.example']);
    assert.deepEqual(certificateNames(issue(ca, { commonName: 'Not A Domain' }, { usages: ['serverAuth'] }).certPem), []);
  });
});

describe('a server started with --tls-min-version and --tls-cipher-suites', () => {
  let tls13: TestServer;
  let suites: TestServer;
  let tls10: TestServer;
  before(async () => {
    [tls13, tls10, suites] = await Promise.all([
      startTestServer(['--tls-min-version=VersionTLS13']),
      startTestServer(['--tls-min-version=VersionTLS10']),
      // The server's own certificate is ECDSA: an ECDHE-ECDSA suite is the one that can be chosen.
      startTestServer(['--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']),
    ]);
  });
  after(async () => {
    await Promise.all([tls13?.close(), suites?.close(), tls10?.close()]);
  });

  test('VersionTLS13 refuses a TLS 1.2 client and serves a TLS 1.3 one', async () => {
    const old = await handshake(tls13.url, { maxVersion: 'TLSv1.2' });
    assert.ok(old.error, 'TLS 1.2 handshake refused');
    const current = await handshake(tls13.url, {});
    assert.equal(current.protocol, 'TLSv1.3');
    assert.equal((await tls13.request('GET', '/api/v1/namespaces/default')).status, 200);
  });

  test('TLS 1.2 clients get a listed suite and nothing else; TLS 1.3 is untouched', async () => {
    const listed = await handshake(suites.url, { maxVersion: 'TLSv1.2' });
    assert.equal(listed.cipher, 'ECDHE-ECDSA-AES256-GCM-SHA384');
    const unlisted = await handshake(suites.url, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' });
    assert.ok(unlisted.error, 'a suite not listed is refused');
    const tls13Client = await handshake(suites.url, {});
    assert.equal(tls13Client.protocol, 'TLSv1.3');
    assert.equal((await suites.request('GET', '/api/v1/namespaces/default')).status, 200);
  });

  test('the default is TLS 1.2 at least: a TLS 1.1 client is refused; VersionTLS10 serves TLS 1.0 and 1.1 clients', async () => {
    const legacyClient = (version: 'TLSv1' | 'TLSv1.1') => ({ minVersion: version, maxVersion: version, ciphers: 'DEFAULT:@SECLEVEL=0' }) as const;
    assert.ok((await handshake(suites.url, legacyClient('TLSv1.1'))).error);
    assert.equal((await handshake(tls10.url, legacyClient('TLSv1'))).protocol, 'TLSv1');
    assert.equal((await handshake(tls10.url, legacyClient('TLSv1.1'))).protocol, 'TLSv1.1');
    assert.equal((await handshake(tls10.url, {})).protocol, 'TLSv1.3');
  });
});

describe('--tls-sni-cert-key', () => {
  const ca = makeCa('sni-ca');
  const leaf = (cn: string, hosts: string[]) => issue(ca, { commonName: cn }, { usages: ['serverAuth'], hosts });
  let server: TestServer;
  before(async () => {
    const first = writePair('sni-first', leaf('first', ['first.example', 'shared.example']));
    const second = writePair('sni-second', leaf('second', ['second.example', 'shared.example']));
    const explicit = writePair('sni-explicit', leaf('explicit', ['unrelated.example']));
    server = await startTestServer([
      `--tls-sni-cert-key=${first.cert},${first.key}`,
      `--tls-sni-cert-key=${second.cert},${second.key}`,
      `--tls-sni-cert-key=${explicit.cert},${explicit.key}:*.wild.example,second.example`,
    ]);
  });
  after(() => server?.close());

  const subjectFor = async (servername: string | undefined) => {
    const result = await handshake(server.url, servername === undefined ? {} : { servername });
    assert.ifError(result.error);
    return result.cert!.subject.CN;
  };

  test('names from the certificates, earlier flags first, explicit patterns over extracted names, wildcards one label deep', async () => {
    assert.equal(await subjectFor('first.example'), 'first');
    assert.equal(await subjectFor('FIRST.example'), 'first', 'names match without case');
    assert.equal(await subjectFor('shared.example'), 'first', 'the earlier flag wins a shared name');
    assert.equal(await subjectFor('second.example'), 'explicit', 'an explicit pattern beats a name read from a certificate');
    assert.equal(await subjectFor('a.wild.example'), 'explicit');
    assert.equal(await subjectFor('a.b.wild.example'), 'orch-apiserver', 'a wildcard covers one label');
    assert.equal(await subjectFor('unrelated.example'), 'orch-apiserver', 'explicit patterns replace the certificate names');
    assert.equal(await subjectFor('localhost'), 'orch-apiserver', 'other names get the default certificate');
  });

  test('an SNI pair that cannot be read stops the start with upstream wording', () => {
    const run = spawnSync(process.execPath, [BIN, '--secure-port=0', `--data-dir=${join(dir, 'data-bad-sni')}`, `--tls-sni-cert-key=${join(dir, 'missing.crt')},${join(dir, 'missing.key')}`], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /failed to load SNI cert and key \[0\//);
  });
});

describe('--cert-dir', () => {
  test('apiserver.crt and apiserver.key there are served; without them the CA and serving pair are made there', async () => {
    const root = makeCa('cert-dir-root');
    const given = join(dir, 'given-certs');
    rmSync(given, { recursive: true, force: true });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(given);
    const apiserver = issue(root, { commonName: 'from-cert-dir' }, { usages: ['serverAuth'], hosts: ['127.0.0.1', 'localhost'] });
    writeFileSync(join(given, 'apiserver.crt'), apiserver.certPem + root.certPem);
    writeFileSync(join(given, 'apiserver.key'), apiserver.keyPem);
    const withPair = await startTestServer([`--cert-dir=${given}`]);
    try {
      assert.equal((await handshake(withPair.url, {})).cert?.subject.CN, 'from-cert-dir');
      assert.equal((await withPair.request('GET', '/api/v1/namespaces/default')).status, 200, 'the orchconfig trusts the chain');
    } finally {
      await withPair.close();
    }

    const made = join(dir, 'made-certs');
    const fresh = await startTestServer([`--cert-dir=${made}`]);
    try {
      assert.ok(existsSync(join(made, 'serving.crt')) && existsSync(join(made, 'ca.crt')));
      assert.equal(existsSync(join(fresh.dataDir, 'pki', 'serving.crt')), false, 'not under --data-dir');
      const served = (await handshake(fresh.url, {})).cert!;
      assert.equal(served.fingerprint256, new X509Certificate(await import('node:fs').then((fs) => fs.readFileSync(join(made, 'serving.crt'), 'utf8'))).fingerprint256);
    } finally {
      await fresh.close();
    }
  });
});

describe('reloading certificate files', () => {
  test('a renewed default or SNI pair is served after reload; a broken file keeps the last good pair', async () => {
    const ca = makeCa('reload-ca');
    const leaf = (cn: string, hosts: string[]) => issue(ca, { commonName: cn }, { usages: ['serverAuth'], hosts });
    const main = writePair('reload-main', leaf('main-1', ['localhost']));
    const sni = writePair('reload-sni', leaf('sni-1', ['sni.example']));
    const first = leaf('main-1', ['localhost']);
    writeFileSync(main.cert, first.certPem);
    writeFileSync(main.key, first.keyPem);
    const serving = new ServingCertificates(
      { cert: first.certPem, key: first.keyPem, files: { certFile: main.cert, keyFile: main.key }, sni: [{ certFile: sni.cert, keyFile: sni.key, names: [] }] },
      () => undefined,
    );
    const server: Server = createServer({ ...serving.options(), SNICallback: serving.sniCallback }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const reload = () => {
        if (serving.reload(false)) server.setSecureContext(serving.options());
      };
      assert.equal(serving.reload(false), false, 'nothing changed');
      assert.equal((await handshake(url, { servername: 'sni.example' })).cert?.subject.CN, 'sni-1');

      writePair('reload-sni', leaf('sni-2', ['sni.example']));
      writePair('reload-main', leaf('main-2', ['localhost']));
      reload();
      assert.equal((await handshake(url, { servername: 'sni.example' })).cert?.subject.CN, 'sni-2');
      assert.equal((await handshake(url, {})).cert?.subject.CN, 'main-2');

      writeFileSync(main.cert, 'not a certificate');
      writeFileSync(sni.key, 'not a key');
      reload();
      assert.equal((await handshake(url, {})).cert?.subject.CN, 'main-2', 'a broken default pair keeps the last good one');
      assert.equal((await handshake(url, { servername: 'sni.example' })).cert?.subject.CN, 'sni-2');
    } finally {
      server.close();
    }
  });
});
