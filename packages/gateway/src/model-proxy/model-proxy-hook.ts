// Where the model proxy joins the job path: a job hook whose part opens the run's proxy session when the runner is
// about to start (the session adds its address, variables and usage to the run, and its cap ends the job).
import type { JobHook } from '../jobs/job-hooks';
import type { ModelProxy } from './model-proxy';

export { ModelProxy, type ModelProxyOptions } from './model-proxy';

export function modelProxyHook(proxy: ModelProxy): JobHook {
  return {
    name: 'model_proxy',
    partFor: (route, job) => (proxy.enabled ? { attach: () => proxy.open(route, job) } : undefined),
  };
}
