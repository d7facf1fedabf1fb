/**
 * The tag of a container image reference as upstream's kubelet parsers read it
 * (K pkg/util/parsers ParseImageName over distribution/reference
 * ParseNormalizedNamed), for the imagePullPolicy default of SetDefaults_Container.
 */

const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const PATH_RE = new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`);
const DOMAIN_LABEL = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_RE = new RegExp(`^(?:${DOMAIN_LABEL}(?:\\.${DOMAIN_LABEL})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?$`);
const TAG_RE = /^[\w][\w.-]{0,127}$/;
const DIGEST_RE = /^([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*):([0-9a-fA-F]{32,})$/;
const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
const NAME_TOTAL_MAX = 255;

/**
 * The tag the kubelet would pull: the written tag, `latest` when neither a tag
 * nor a digest is written, '' when only a digest is, and '' when the reference
 * does not parse (upstream ignores that error and defaults to IfNotPresent).
 */
export function imageTag(image: string): string {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    const m = DIGEST_RE.exec(digest);
    if (!m) return '';
    const wanted = DIGEST_LENGTHS[m[1]];
    if (wanted === undefined || m[2].length !== wanted || /[A-F]/.test(m[2])) return '';
  }
  let tag = '';
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_RE.test(tag)) return '';
  }
  if (/^[a-f0-9]{64}$/.test(rest) || rest.length > NAME_TOTAL_MAX) return '';
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  const hasDomain = slash >= 0 && (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first);
  const path = hasDomain ? rest.slice(slash + 1) : rest;
  if (hasDomain && !DOMAIN_RE.test(first)) return '';
  if (!PATH_RE.test(path)) return '';
  if (!tag && digest === undefined) return 'latest';
  return tag;
}
