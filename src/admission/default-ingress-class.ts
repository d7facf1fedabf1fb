/**
 * DefaultIngressClass admission (upstream kubernetes
 * plugin/pkg/admission/network/defaultingressclass, 1.31): an Ingress created
 * without spec.ingressClassName and without the deprecated class annotation
 * gets the default IngressClass, the one annotated
 * `ingressclass.orch.io/is-default-class: "true"` (FACTS §0 renaming), the
 * newest when several are (the same age: the first name). Classes are read from
 * the watch cache, as upstream reads its informer.
 */
import type { AdmissionHook } from '../registry/store.ts';
import type { ApiObject } from '../registry/strategy.ts';
import { INGRESS_CLASS_ANNOTATION } from '../kinds/networking.orch.io/ingress/validate.ts';

/** networking/v1 AnnotationIsDefaultIngressClass, renamed (FACTS §0). */
const DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.orch.io/is-default-class';

/** getDefaultClass: the newest class annotated default, or undefined. */
function defaultClass(classes: readonly ApiObject[]): ApiObject | undefined {
  const created = (c: ApiObject) => Date.parse(c.metadata.creationTimestamp ?? '') || 0;
  return classes
    .filter((c) => c.metadata.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true')
    .sort((a, b) => created(b) - created(a) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))[0];
}

/** The mutating hook; `classes` lists the stored IngressClasses. */
export function defaultIngressClass(classes: () => readonly ApiObject[]): AdmissionHook {
  return async ({ operation, kind, subresource, object }) => {
    if (operation !== 'CREATE' || kind.group !== 'networking.orch.io' || kind.plural !== 'ingresses' || subresource !== '' || !object) return;
    const spec = (object.spec ??= {});
    if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
    if (object.metadata.annotations && INGRESS_CLASS_ANNOTATION in object.metadata.annotations) return;
    const chosen = defaultClass(classes());
    if (chosen) spec.ingressClassName = chosen.metadata.name;
  };
}
