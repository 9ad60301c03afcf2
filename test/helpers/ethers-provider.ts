// Closing an ethers JsonRpcProvider that polls. `destroy()` alone can leave a block poll running:
// a poll in flight re-arms its timer when it returns, and `start()` runs one poll beside the timer
// it sets (ethers 6 subscriber-polling.ts), so a test process was seen to never exit (a 20 ms poll
// timer alive after the last test). Stop every subscriber first, let the polls and ethers' 250 ms
// request-cache timers run out, then destroy.
import type { JsonRpcProvider } from 'ethers';

export async function closePollingProvider(provider: JsonRpcProvider): Promise<void> {
  await provider.removeAllListeners();
  await new Promise((r) => setTimeout(r, provider.pollingInterval * 3 + 300));
  provider.destroy();
}
