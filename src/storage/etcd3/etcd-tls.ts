/**
 * The client TLS files for https:// etcd servers, as kube-apiserver's
 * --etcd-cafile, --etcd-certfile and --etcd-keyfile (upstream:
 * storagebackend.TransportConfig, read by etcd's transport.TLSInfo). They are
 * read and checked at start-up so a missing file or a key that does not match
 * its certificate stops the server with a message naming the flag, instead of
 * every call failing later.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { TlsFiles } from './grpc-session.ts';

export interface EtcdTlsPaths {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

function read(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`--${flag}: cannot read ${path}: ${(err as Error).message}`);
  }
}

/** The files' contents, or undefined when no flag is set; throws an Error naming the flag on a bad file or pair. */
export function readEtcdTls(paths: EtcdTlsPaths): TlsFiles | undefined {
  if (!paths.caFile && !paths.certFile && !paths.keyFile) return undefined;
  if (!paths.certFile !== !paths.keyFile) throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  const files: TlsFiles = {};
  if (paths.caFile) files.ca = read('etcd-cafile', paths.caFile);
  if (paths.certFile) files.cert = read('etcd-certfile', paths.certFile);
  if (paths.keyFile) files.key = read('etcd-keyfile', paths.keyFile);
  try {
    createSecureContext(files);
  } catch (err) {
    throw new Error(`etcd client TLS (--etcd-cafile, --etcd-certfile, --etcd-keyfile): ${(err as Error).message}`);
  }
  return files;
}
