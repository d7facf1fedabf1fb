/**
 * What an audit event reads off the request itself (upstream pkg/audit/request.go
 * LogRequestMetadata, utilnet.SourceIPs, WithFailedAuthenticationAudit's
 * getAuthMethods): the user as the event shows it, the source addresses, the
 * object reference in upstream's field order, a body decoded for the event.
 */
import type { ProtobufCodec } from '../api/protobuf/codec.ts';
import { openEnvelope, PROTOBUF_TYPE } from '../api/protobuf/envelope.ts';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../api/user.ts';
import { yaml } from '../util/lazy-packages.ts';
import type { AuditUser, ObjectReference } from './event.ts';

/** upstream getAuthMethods. */
export function attemptedMethods(req: IncomingMessage): string {
  const methods: string[] = [];
  const authorization = (req.headers.authorization ?? '').trim();
  const [scheme, credential] = authorization.split(' ');
  if (scheme?.toLowerCase() === 'basic' && credential) methods.push('basic');
  if (scheme?.toLowerCase() === 'bearer' && credential?.trim()) methods.push('bearer');
  const socket = req.socket as { getPeerCertificate?: () => { raw?: Buffer } };
  if (socket.getPeerCertificate?.()?.raw) methods.push('x509');
  return methods.length ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/** A request or response body as the event's object: JSON or YAML by its media type; undefined when it does not parse. */
export function decodeBody(body: Buffer, contentType: string, protobuf?: ProtobufCodec): unknown {
  if (body.length === 0) return undefined;
  try {
    if (/yaml/.test(contentType)) return yaml().parse(body.toString('utf8'));
    // A protobuf object is logged as the object it encodes, as upstream logs the decoded object whatever the wire form (a watch stream's frames are not one object).
    if (contentType.startsWith(PROTOBUF_TYPE)) {
      if (!protobuf || contentType.includes('stream=')) return undefined;
      const { apiVersion, kind } = openEnvelope(body);
      return protobuf.decodeObject(body, apiVersion, kind);
    }
    return JSON.parse(body.toString('utf8'));
  } catch {
    // A body the handler refused as malformed has no object to log.
    return undefined;
  }
}

/** upstream's authnv1.UserInfo of the event: empty fields left out; no user, an empty object. */
export function auditUser(user: UserInfo | undefined): AuditUser {
  if (!user) return {} as AuditUser;
  const out: AuditUser = { username: user.name };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = user.extra;
  return out;
}

const REF_ORDER = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;

/** upstream's ObjectReference field order, empty fields omitted. */
export function orderRef(ref: ObjectReference): ObjectReference {
  const out: ObjectReference = {};
  for (const field of REF_ORDER) if (ref[field]) out[field] = ref[field];
  return out;
}

/** upstream utilnet.SourceIPs: X-Forwarded-For, X-Real-Ip, then the peer unless it is already last. */
export function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string') for (const part of forwarded.split(',')) addIp(ips, part.trim(), false);
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string') addIp(ips, real.trim(), true);
  const peer = normalizeIp(req.socket.remoteAddress ?? '');
  if (peer && ips[ips.length - 1] !== peer) ips.push(peer);
  return ips;
}

function addIp(ips: string[], text: string, unique: boolean): void {
  const ip = normalizeIp(text);
  if (ip && !(unique && ips.includes(ip))) ips.push(ip);
}

function normalizeIp(text: string): string | undefined {
  const ip = text.startsWith('::ffff:') && text.includes('.') ? text.slice(7) : text;
  return /^[0-9a-fA-F:.]+$/.test(ip) && (ip.includes('.') || ip.includes(':')) ? ip : undefined;
}
