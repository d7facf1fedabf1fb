/**
 * The Table cells of HorizontalPodAutoscaler, from its stored (v2) form at
 * every version (SPEC 2.5; upstream K pkg/printers/internalversion printers.go
 * printHorizontalPodAutoscaler and formatHPAMetrics).
 */
import type { components } from '../../../generated/types/apis__autoscaling__v2.ts';
import type { Cell } from '../../../registry/printer-cells.ts';

type HorizontalPodAutoscaler = components['schemas']['io.orch.api.autoscaling.v2.HorizontalPodAutoscaler'];

const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (v === undefined || v === null ? '0' : String(v));

/** formatHPAMetrics: each metric as `current/target`, at most two, then `+ N more...`; `<none>` without metrics. */
function formatMetrics(specs: unknown, obj: any): string {
  const metrics = arr(specs);
  if (!metrics.length) return '<none>';
  const statuses = arr(obj.status?.currentMetrics);
  const list = metrics.map((spec, i) => {
    const status = statuses[i];
    switch (spec?.type) {
      case 'External':
      case 'Object': {
        const source = spec.type === 'External' ? spec.external : spec.object;
        const current = spec.type === 'External' ? status?.external?.current : status?.object?.current;
        if (source?.target?.averageValue !== undefined) return `${current?.averageValue !== undefined ? current.averageValue : '<unknown>'}/${source.target.averageValue} (avg)`;
        return `${current ? text(current.value) : '<unknown>'}/${text(source?.target?.value)}`;
      }
      case 'Pods':
        return `${status?.pods ? text(status.pods.current?.averageValue) : '<unknown>'}/${text(spec.pods?.target?.averageValue)}`;
      case 'Resource':
      case 'ContainerResource': {
        const source = spec.type === 'Resource' ? spec.resource : spec.containerResource;
        const current = spec.type === 'Resource' ? status?.resource : status?.containerResource;
        if (source?.target?.averageValue !== undefined) return `${source.name}: ${current ? text(current.current?.averageValue) : '<unknown>'}/${source.target.averageValue}`;
        const utilization = current?.current?.averageUtilization;
        const target = source?.target?.averageUtilization;
        return `${source?.name ?? ''}: ${utilization !== undefined ? `${utilization}%` : '<unknown>'}/${target !== undefined ? `${target}%` : '<auto>'}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return list.length > 2 ? `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...` : list.join(', ');
}

export const cells = {
  // printHorizontalPodAutoscaler: `Kind/name` of the scale target.
  scaleTargetRef: (value: any) => `${value?.kind ?? ''}/${value?.name ?? ''}`,
  hpaTargets: formatMetrics,
} satisfies Record<string, Cell<HorizontalPodAutoscaler>>;
