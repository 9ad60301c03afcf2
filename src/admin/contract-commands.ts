// `chain-node admin contract …`: ContractDataProcessor (vcl has no such command; Venachain's
// contract is called by its address): migrate copies one contract's storage into another.
import { fromQuantity } from '../../generated/client/index.ts';
import { address, call, write, type Command } from './command.ts';

export const contractCommands: Record<string, Command> = {
  migrate: {
    args: [2, 0],
    async run(ctx, [src, dest]) {
      const c = call('ContractDataProcessor', 'migrate', address(src!, 'src'), address(dest!, 'dest'));
      // the price grows with the slots copied: the node's estimate (a refusal is answered by the send)
      const sender = await ctx.sender();
      let gas: bigint | undefined;
      try {
        gas = fromQuantity(await ctx.client.eth.estimateGas({ from: sender.address, to: c.to, data: c.data }));
      } catch {
        gas = undefined;
      }
      return write(ctx, { ...c, gas }, `storage of ${src} copied into ${dest}`);
    },
  },
};
