// One plugin instance per key (a deliverer's id, a runner's or a source's id and options), shared by everyone who
// asks for it, also while it is being created.

export class InstanceCache<T> {
  private readonly pending = new Map<string, Promise<T>>();

  /**
   * The instance under `key`, made by `create` on the first call; calls during the creation share it. A creation
   * that fails is forgotten once it has failed, so that the next call tries again (after the config was fixed or
   * the service came back) instead of repeating a stale error.
   */
  get(key: string, create: () => Promise<T>): Promise<T> {
    let pending = this.pending.get(key);
    if (!pending) {
      const created = create();
      pending = created;
      created.catch(() => {
        if (this.pending.get(key) === created) this.pending.delete(key);
      });
      this.pending.set(key, created);
    }
    return pending;
  }

  /** Every creation still held: finished or under way (failed ones leave as they fail), in the order of first use. */
  all(): Array<Promise<T>> {
    return [...this.pending.values()];
  }
}
