// the generator lives in src/util (the p2p fault injection uses it too); tests import it from here
export { prng } from '../../src/util/prng.ts';
