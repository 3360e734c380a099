// Where the model proxy joins the job path: a job hook whose part opens the run's proxy session when the runner is
// about to start (the session adds its address, variables and usage to the run, and its cap ends the job).
// Which routes it serves depends on their runner (ModelProxy.serves): `runnerOf` names a route's.
import type { JobHook } from '../jobs/job-hooks';
import type { Route } from '../routes/routes';
import type { ModelProxy } from './model-proxy';

export { ModelProxy, type ModelProxyOptions } from './model-proxy';

export function modelProxyHook(proxy: ModelProxy, runnerOf: (route: Route) => string): JobHook {
  return {
    name: 'model_proxy',
    partFor: (route, job) => (proxy.serves(runnerOf(route)) ? { attach: () => proxy.open(route, job) } : undefined),
  };
}
