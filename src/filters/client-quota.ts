// Per-client caps on installed filters (and, in a quota of their own, subscriptions), below the
// node-wide --rpc.filter.max: without them one client took every slot — one WebSocket opened all
// 10,000 subscriptions in 0.5 s, 20 HTTP batches installed all 10,000 filters — and every other
// client was refused. A client is its WebSocket connection and its IP address: HTTP has no lasting
// connection, so HTTP filters count by address only (every loopback client, and every client behind
// one local proxy, is one address).

/** Who holds a filter or subscription; an absent part is not counted. */
export interface ListenerOwner {
  /** the client's IP address as its socket gives it */
  readonly address?: string;
  /** an object standing for its WebSocket connection (the same one for all its calls) */
  readonly connection?: object;
}

export interface ClientQuotaLimits {
  /** most one WebSocket connection may hold (--rpc.filter.maxperconnection) */
  readonly perConnection: number;
  /** most one client address may hold over all its connections and HTTP (--rpc.filter.maxperaddress) */
  readonly perAddress: number;
}

export class ClientQuota {
  /** listeners held, by connection object and by address string (the two never collide as Map keys) */
  private readonly held = new Map<object | string, number>();

  constructor(
    /** 'filters' or 'subscriptions', for the refusal message */
    private readonly what: string,
    private readonly limits: ClientQuotaLimits,
  ) {}

  /** Why `owner` may not hold one more, or undefined when it may. */
  refusal(owner: ListenerOwner): string | undefined {
    const { perConnection, perAddress } = this.limits;
    if (owner.connection !== undefined && this.count(owner.connection) >= perConnection) {
      return `too many ${this.what} on this connection (limit ${perConnection}, --rpc.filter.maxperconnection)`;
    }
    if (owner.address !== undefined && this.count(owner.address) >= perAddress) {
      return `too many ${this.what} from client address ${owner.address} (limit ${perAddress}, --rpc.filter.maxperaddress)`;
    }
    return undefined;
  }

  take(owner: ListenerOwner): void {
    if (owner.connection !== undefined) this.held.set(owner.connection, this.count(owner.connection) + 1);
    if (owner.address !== undefined) this.held.set(owner.address, this.count(owner.address) + 1);
  }

  /** The listener is gone: its slot is free (and a client holding none is forgotten). */
  give(owner: ListenerOwner): void {
    if (owner.connection !== undefined) this.drop(owner.connection);
    if (owner.address !== undefined) this.drop(owner.address);
  }

  private count(key: object | string): number {
    return this.held.get(key) ?? 0;
  }

  private drop(key: object | string): void {
    const n = this.count(key) - 1;
    if (n > 0) this.held.set(key, n);
    else this.held.delete(key);
  }
}
