/**
 * A token bucket refilled continuously at `perSecond`, holding at most `capacity` tokens (by default one
 * second's worth). In memory, per process: the submission limits, the invitation preview's limit and the platforms' request quotas use it.
 */
export class TokenBucket {
  private tokens: number;
  private at = Date.now();

  constructor(
    private perSecond: number,
    private capacity = perSecond,
  ) {
    this.tokens = capacity;
  }

  /**
   * Takes `n` tokens, or answers the seconds until they would be there (> 0). A batch larger than the
   * bucket passes on a full bucket and leaves it in debt, so it is neither refused forever nor free.
   * A new `perSecond` (an override changed) also makes it the capacity when the capacity followed the rate.
   */
  take(n: number, now = Date.now(), perSecond = this.perSecond): number {
    if (perSecond !== this.perSecond) {
      if (this.capacity === this.perSecond) this.capacity = perSecond;
      this.tokens = Math.min(this.tokens, this.capacity);
      this.perSecond = perSecond;
    }
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * perSecond);
    this.at = now;
    const needed = Math.min(n, this.capacity);
    if (this.tokens >= needed) {
      this.tokens -= n;
      return 0;
    }
    return (needed - this.tokens) / perSecond;
  }
}
