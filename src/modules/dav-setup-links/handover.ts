// How a new address-book password reaches a phone's own apps without being typed (PRODUCT §9,
// decision 300):
// - iPhone, iPad and Mac: an Apple configuration profile (mobileconfig.ts), which the phone's
//   browser downloads from the setup page and Settings installs.
// - Android: DAVx5's login screen with every value filled. DAVx5 reads the server, user name and
//   password from the data URI of the intent that opens it: `davx5://user:password@host/path`
//   (https) or `carddav://…` (http) (DAVx5 manual, "Integration / API"; LoginActivity's
//   loginInfoFromIntent maps davx5/carddavs to https and carddav to http and splits the user
//   info). From a web page, Chrome for Android opens it through an `intent:` URL naming DAVx5's
//   package, which also sends the person to the app store when DAVx5 is not installed
//   (developer.chrome.com, "Android Intents with Chrome"). Browsers without intent: URLs follow
//   the plain davx5:// link.
import { carddavProfile } from './mobileconfig.js';

/** DAVx5's application id on Google Play and F-Droid. */
export const DAVX5_PACKAGE = 'at.bitfire.davdroid';

export interface Handover {
  davx5Url: string;
  androidIntentUrl: string;
  /** The configuration profile, as text. */
  profile(): string;
}

export function handover(input: { serverUrl: string; accountId: string; password: string; tokenId: string; label: string }): Handover {
  const url = new URL(input.serverUrl);
  const secure = url.protocol === 'https:';
  // The account id signs in, not the username: it survives a rename (decision 150).
  const userInfo = `${encodeURIComponent(input.accountId)}:${encodeURIComponent(input.password)}`;
  const rest = `${userInfo}@${url.host}${url.pathname}`;
  const scheme = secure ? 'davx5' : 'carddav';
  return {
    davx5Url: `${scheme}://${rest}`,
    androidIntentUrl: `intent://${rest}#Intent;scheme=${scheme};package=${DAVX5_PACKAGE};end`,
    profile: () => carddavProfile({ serverUrl: input.serverUrl, username: input.accountId, password: input.password, accountId: input.accountId, tokenId: input.tokenId, label: input.label }),
  };
}
