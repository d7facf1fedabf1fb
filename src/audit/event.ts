/**
 * The `audit.orch.io/v1` Event (upstream k8s.io/apiserver pkg/apis/audit/v1
 * types.go), its MicroTime timestamps and the one-line legacy text of
 * --audit-log-format=legacy (upstream pkg/audit/format.go EventString).
 */
import type { Level, Stage } from './policy.ts';

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** Fields in the order upstream's struct encodes them. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: Record<string, unknown>;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const origin = performance.timeOrigin;
/** The formatted second of the last timestamp: most timestamps share it with the one before. */
let lastSecond = -1;
let lastSecondText = '';

/** metav1.MicroTime now: RFC 3339 in UTC with six fractional digits. */
export function microTimeNow(): string {
  const micros = Math.floor((origin + performance.now()) * 1000);
  const second = Math.floor(micros / 1_000_000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastSecondText = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return `${lastSecondText}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

/** Go's RFC3339Nano: trailing zeros of the fraction dropped. */
function rfc3339Nano(micro: string): string {
  return micro.replace(/\.?0+Z$/, 'Z');
}

const quoted = (s: string) => JSON.stringify(s);

/** upstream EventString. */
export function legacyLine(ev: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups?.length) groups = ev.user.groups.map(quoted).join(',');
  }
  let as = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    as = ev.impersonatedUser.username;
    if (ev.impersonatedUser.groups) asGroups = ev.impersonatedUser.groups.map(quoted).join(',');
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  return (
    `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${quoted(ev.auditID)} stage=${quoted(ev.stage)} ip=${quoted(ip)} method=${quoted(ev.verb)} ` +
    `user=${quoted(username)} groups=${quoted(groups)} as=${quoted(as)} asgroups=${quoted(asGroups)} user-agent=${quoted(ev.userAgent ?? '')} ` +
    `namespace=${quoted(namespace)} uri=${quoted(ev.requestURI)} response="${response}"`
  );
}
