// @hookwise/sandbox: runs agent processes inside bubblewrap, with an egress proxy that lets through only the
// hosts a route lists. See README.md for what it stops and what it does not.
export { probeSandbox, INSTALL_FIX, type SandboxProbe, type ProbeOptions } from './probe';
export { resolveSandboxPolicy, SANDBOX_MODES, type SandboxMode, type SandboxDecision } from './policy';
export { sandboxCommand, SYSTEM_PATHS, EGRESS_SOCKET_INSIDE, DEFAULT_PROXY_PORT, isWithin, type SandboxSpec, type SpawnPlan } from './command';
export { EgressProxy, DEFAULT_MAX_TUNNELS_PER_RUN, type EgressProxyOptions, type EgressLease, type EgressLogger } from './egress-proxy';
export { reachesListener, type RefusedListener } from './refused-listeners';
export { fdExhaustionOf, fdExhaustionAdvice, type FdExhaustionCode } from './fd-exhaustion';
export { parseNetworkList, findRule, addressAllowed, isInternalAddress, normaliseHost, type NetworkRule } from './network-rules';
export { openSandboxRun, type SandboxRun, type SandboxRunOptions } from './run';
export {
  limitReached,
  openPidsCgroup,
  pidsCgroupParent,
  processLimitEnforcement,
  rlimitPrefix,
  type LimitExit,
  type PidsCgroup,
  type SandboxLimits,
} from './limits';
