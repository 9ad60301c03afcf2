// The dev chain (what `npm start` runs without --genesis: chain id 300, JSON-RPC and WebSocket on
// 127.0.0.1:6791) described for the two libraries applications pair with this SDK, without
// depending on either: a plain object of viem's `Chain` shape and an ethers `Networkish`.
//   createPublicClient({ chain: devChain, transport: http() })                         // viem
//   new JsonRpcProvider(devChain.rpcUrls.default.http[0], devNetwork, { staticNetwork: true }) // ethers

/** Chain id of a dev chain (src/core/dev-genesis.ts). */
export const DEV_CHAIN_ID = 300;

/** viem's `defineChain` input for a dev chain served at `url` (default 127.0.0.1:6791): pass it to defineChain or use it as a Chain. */
export function devChainAt(url = 'http://127.0.0.1:6791') {
  return {
    id: DEV_CHAIN_ID,
    name: 'chain-node dev',
    // The EVM's unit: balances are in wei, 10^18 to the coin (the chain has no token name of its own).
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url], webSocket: [url.replace(/^http/, 'ws')] } },
    testnet: true,
  } as const;
}

/** The dev chain at its default address, as a viem Chain. */
export const devChain = devChainAt();

/** The dev chain as an ethers `Networkish` (`new JsonRpcProvider(url, devNetwork)`; `Network.from(devNetwork)`). */
export const devNetwork = { name: 'chain-node-dev', chainId: DEV_CHAIN_ID } as const;
