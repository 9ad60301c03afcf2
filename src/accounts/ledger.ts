// Ledger hardware wallets. The hub lists connected devices as wallets (`ledger://<HID path>`);
// `open` talks to the Ethereum app, finds the accounts at m/44'/60'/0'/0/i (geth's
// self-derivation: every used account plus the first unused one) and signs transactions on the
// device. The USB side is injected (`LedgerTransports`): node-hid in production, recorded APDU
// exchanges in tests, since a device is a true outside boundary.
import { createRequire } from 'node:module';
import {
  accountPath,
  addressApdu,
  appConfigurationApdu,
  formatPath,
  parseAddress,
  parseAppConfiguration,
  parseTxSignature,
  responseData,
  signTxApdus,
} from './ledger-apdu.ts';

export interface LedgerTransport {
  exchange(apdu: Buffer): Promise<Buffer>;
  close(): Promise<void>;
}

export interface LedgerTransports {
  /** HID paths of the connected Ledger devices */
  list(): Promise<string[]>;
  open(path: string): Promise<LedgerTransport>;
}

export interface LedgerAccount {
  address: string;
  path: number[];
  url: string;
}

/** Accounts derived past the last used one before giving up (a bound, not a rule: geth has none). */
const MAX_ACCOUNTS = 64;
/** How often (at most) the device list is re-read: HID enumeration costs a few ms. */
const REFRESH_MS = 1000;

export class LedgerWallet {
  readonly url: string;
  private transport: LedgerTransport | undefined;
  private appVersion: string | undefined;
  failure: string | undefined;
  accounts: LedgerAccount[] = [];
  /** device exchanges run one at a time */
  private busy: Promise<unknown> = Promise.resolve();
  /** exchanges queued or running (a signature can wait minutes for the user) */
  private active = 0;

  constructor(readonly path: string, private readonly transports: LedgerTransports, private readonly isUsed: (address: string) => Promise<boolean>) {
    this.url = `ledger://${path}`;
  }

  /** geth's texts: "Closed" until opened, then the Ethereum app's state. */
  get status(): string {
    if (!this.transport) return 'Closed';
    return this.appVersion ? `Ethereum app v${this.appVersion} online` : 'Ethereum app offline';
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.active++;
    const run = this.busy.then(fn, fn).finally(() => this.active--);
    this.busy = run.catch(() => undefined);
    return run;
  }

  private async send(apdu: Buffer, action: string): Promise<Uint8Array> {
    if (!this.transport) throw new Error(`Ledger ${this.url} is not open (personal_openWallet opens it)`);
    return responseData(await this.transport.exchange(apdu), action);
  }

  /** Opens the device and derives its accounts. A Ledger has no password: the PIN is entered on the device. */
  open(): Promise<void> {
    return this.exclusive(async () => {
      if (this.transport) return;
      try {
        this.transport = await this.transports.open(this.path);
        this.appVersion = parseAppConfiguration(await this.send(appConfigurationApdu(), 'reading the Ethereum app version'));
        this.failure = undefined;
        await this.derive();
      } catch (e) {
        // closed again, so that the next personal_openWallet retries (e.g. once the app is started)
        this.failure = (e as Error).message;
        await this.close();
        throw e;
      }
    });
  }

  /** Adds accounts until the last one is unused (called at open and when the last one gets used). */
  private async derive(): Promise<void> {
    while (this.accounts.length < MAX_ACCOUNTS) {
      const last = this.accounts.at(-1);
      if (last && !(await this.isUsed(last.address))) return;
      const path = accountPath(this.accounts.length);
      const address = parseAddress(await this.send(addressApdu(path), `reading the address of ${formatPath(path)}`));
      this.accounts.push({ address, path, url: `${this.url}/${formatPath(path)}` });
    }
  }

  /**
   * Re-derives if the last listed account was used since (so the next one appears). Skipped while
   * the device is busy: a listing (eth_accounts) must not wait for a confirmation on the device.
   */
  refreshAccounts(): Promise<void> {
    if (!this.transport || this.active > 0) return Promise.resolve();
    return this.exclusive(() => this.derive()).catch((e: Error) => {
      this.failure = e.message;
    });
  }

  /** Signs an unsigned EIP-155 legacy transaction (its RLP) on the device; the user confirms there. */
  signTx(account: LedgerAccount, unsignedRlp: Uint8Array, chainId: bigint): Promise<{ recid: number; r: Uint8Array; s: Uint8Array }> {
    return this.exclusive(async () => {
      let answer: Uint8Array = new Uint8Array(0);
      for (const apdu of signTxApdus(account.path, unsignedRlp, chainId)) answer = await this.send(apdu, 'signing the transaction');
      return parseTxSignature(answer, chainId);
    });
  }

  /** Releases the device; `failure` is kept so listWallets can say why an open failed. */
  async close(): Promise<void> {
    const t = this.transport;
    this.transport = undefined;
    this.appVersion = undefined;
    this.accounts = [];
    await t?.close().catch(() => undefined);
  }
}

export class LedgerHub {
  private readonly wallets = new Map<string, LedgerWallet>(); // HID path → wallet
  private refreshedAt = -Infinity;
  private refreshing: Promise<void> | undefined;
  /** why USB is unavailable (no libusb, no HID binding): no hardware wallets, and no more tries */
  private unavailable: string | undefined;

  constructor(
    private readonly transports: LedgerTransports,
    private readonly isUsed: (address: string) => Promise<boolean>,
    private readonly log: (msg: string) => void,
  ) {}

  /** The connected devices, each a wallet (the device list is re-read at most once a second). */
  async list(): Promise<LedgerWallet[]> {
    if (Date.now() - this.refreshedAt >= REFRESH_MS) {
      this.refreshing ??= this.refresh().finally(() => {
        this.refreshing = undefined;
        this.refreshedAt = Date.now();
      });
      await this.refreshing;
    }
    await Promise.all([...this.wallets.values()].map((w) => w.refreshAccounts()));
    return [...this.wallets.values()];
  }

  private async refresh(): Promise<void> {
    if (this.unavailable) return;
    let paths: string[];
    try {
      paths = await this.transports.list();
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ERR_DLOPEN_FAILED' || err.code === 'MODULE_NOT_FOUND') {
        this.unavailable = err.message;
        this.log(`hardware wallets disabled: the USB library could not be loaded (${err.message})`);
      } else {
        this.log(`hardware wallets: listing USB devices failed: ${err.message}`);
      }
      return;
    }
    for (const [path, w] of this.wallets) {
      if (!paths.includes(path)) {
        this.wallets.delete(path);
        await w.close();
      }
    }
    for (const path of paths) if (!this.wallets.has(path)) this.wallets.set(path, new LedgerWallet(path, this.transports, this.isUsed));
  }

  async find(url: string): Promise<LedgerWallet | undefined> {
    return (await this.list()).find((w) => w.url === url);
  }

  /** The open wallet holding an account, with the account. */
  async accountOf(address: string): Promise<{ wallet: LedgerWallet; account: LedgerAccount } | undefined> {
    const a = address.toLowerCase();
    for (const wallet of await this.list()) {
      const account = wallet.accounts.find((x) => x.address === a);
      if (account) return { wallet, account };
    }
    return undefined;
  }

  async close(): Promise<void> {
    for (const w of this.wallets.values()) await w.close();
    this.wallets.clear();
  }
}

/**
 * The real USB side: @ledgerhq/hw-transport-node-hid, loaded on first use with createRequire (its
 * lib-es build does not import under plain Node ESM). node-hid 3 needs libusb at run time; without
 * it `list()` throws ERR_DLOPEN_FAILED, which the hub turns into "no hardware wallets".
 */
export function nodeHidTransports(): LedgerTransports {
  interface HidTransportClass {
    list(): Promise<string[]>;
    open(path: string): Promise<LedgerTransport>;
  }
  let cls: HidTransportClass | undefined;
  const load = (): HidTransportClass => (cls ??= (createRequire(import.meta.url)('@ledgerhq/hw-transport-node-hid') as { default: HidTransportClass }).default);
  return {
    list: async () => load().list(),
    open: async (path) => load().open(path),
  };
}
