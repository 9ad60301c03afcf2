// What the EVM's BLOCKHASH opcode asks of "the blockchain": the hash of a recent canonical block.
export interface BlockHashSource {
  getBlock(number: number): Promise<{ hash(): Uint8Array }>;
  putBlock(): Promise<void>;
  shallowCopy(): BlockHashSource;
}

export function blockHashSource(hashByNumber: (n: bigint) => Uint8Array | undefined): BlockHashSource {
  const source: BlockHashSource = {
    async getBlock(number: number) {
      const h = hashByNumber(BigInt(number)) ?? new Uint8Array(32);
      return { hash: () => h };
    },
    async putBlock() {},
    shallowCopy: () => source,
  };
  return source;
}
