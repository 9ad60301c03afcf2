// Hardhat 3 needs a config file to run `hardhat node`; the defaults (EDR simulated network, chain 31337,
// the standard test mnemonic, automine) are what the benchmark compares against.
export default {};
