import { newRegionKey } from './platform/federation/keys.js';

/**
 * `npm run region-key -- KID`: prints a fresh Ed25519 key pair for the federation between
 * regions: the private JWK for this region's REGION_KEY, and the public JWK to add to the
 * `keys` of this region's entry in every other region's REGIONS. To rotate, add the new public
 * key to the peers first, then switch REGION_KEY, then drop the old public key
 * (docs/operations.md; as with SECRET_KEY and SECRET_KEYS_ACCEPTED, decision 110).
 * Needs no configuration and touches nothing.
 */
const kid = process.argv[2];
if (!kid || !/^[\x21-\x7e]{1,64}$/.test(kid) || process.argv.length > 3) {
  console.error('usage: npm run region-key -- KID   (a key id of up to 64 visible ASCII characters, e.g. eu-2026-11)');
  process.exit(2);
}
const { privateJwk, publicJwk } = newRegionKey(kid);
console.log('# This region\'s private key: REGION_KEY (a secret; keep it with SECRET_KEY)');
console.log(`REGION_KEY='${JSON.stringify(privateJwk)}'`);
console.log('');
console.log('# Its public key: add it to the "keys" of this region in the other regions\' REGIONS');
console.log(JSON.stringify(publicJwk));
