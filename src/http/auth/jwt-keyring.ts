import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject, webcrypto } from "node:crypto";
import type { JWTHeaderParameters, JWTPayload } from "jose";
import { HttpServerError } from "../exchange/http-errors.js";
import { HttpMessages } from "../exchange/http-messages.js";

/** The claims of a JSON Web Token. */
export type JwtPayload = JWTPayload;

/** The algorithms a keyring accepts. */
export type JwtAlgorithm = "HS256" | "RS256";

interface KeyEntry {
  readonly algorithm: JwtAlgorithm;
  readonly verifyKey: KeyObject;
  readonly signKey: KeyObject | undefined;
  /**
   * `verifyKey` as the Web Crypto key jose verifies with, imported on the first verification and kept: given a
   * `KeyObject`, jose exports and imports it again on every call (some 14% of an authenticated request's CPU).
   */
  cryptoKey: Promise<webcrypto.CryptoKey> | undefined;
}

/** The Web Crypto algorithm of each of the keyring's algorithms, for verifying. */
const verifyAlgorithms: Readonly<Record<JwtAlgorithm, webcrypto.HmacImportParams | webcrypto.RsaHashedImportParams>> = {
  HS256: { name: "HMAC", hash: "SHA-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
};

/** Imports `entry`'s verification key into Web Crypto, as jose would on each call. */
function importVerifyKey(entry: KeyEntry): Promise<webcrypto.CryptoKey> {
  const key = entry.verifyKey;
  const algorithm = verifyAlgorithms[entry.algorithm];
  return entry.algorithm === "HS256"
    ? webcrypto.subtle.importKey("raw", key.export(), algorithm, false, ["verify"])
    : webcrypto.subtle.importKey("spki", key.export({ type: "spki", format: "der" }), algorithm, false, ["verify"]);
}

/** Options of `JwtKeyring.sign`. */
export interface JwtSignOptions {
  /** The key id to sign with; default the first key added that can sign. */
  readonly kid?: string;
  /** Lifetime: seconds, or a jose time span such as `"15m"`; default `"1h"`. */
  readonly expiresIn?: number | string;
}

const minimumSecretBytes = 32;

type Jose = typeof import("jose");
let jose: Promise<Jose> | undefined;

/** The `jose` library, loaded on the first signature or verification: a server without bearer tokens never loads it. */
function loadJose(): Promise<Jose> {
  jose ??= import("jose");
  return jose;
}

/**
 * The keys of a bearer authentication, by key id (`kid`): HS256 shared secrets and RS256 key pairs, on the
 * `jose` library. Verification takes the key named by the token's `kid` (or the only key when the token
 * names none), insists that the token's `alg` is that key's algorithm (no algorithm confusion), checks the
 * signature, requires `exp` and honours it and `nbf`. Build it once at start-up; it is safe to share between requests.
 */
export class JwtKeyring {
  readonly #keys = new Map<string, KeyEntry>();

  /** Adds an HS256 secret (at least 32 bytes) under `kid`. */
  addHs256(kid: string, secret: string | Uint8Array): this {
    const bytes = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
    if (bytes.length < minimumSecretBytes) {
      throw new HttpServerError(HttpMessages.hs256SecretTooShort(kid, minimumSecretBytes));
    }
    const key = createSecretKey(bytes);
    return this.#add(kid, { algorithm: "HS256", verifyKey: key, signKey: key, cryptoKey: undefined });
  }

  /** Adds an RS256 public key (PEM or KeyObject) under `kid`, and its private key when this side signs. */
  addRs256(kid: string, publicKey: string | KeyObject, privateKey?: string | KeyObject): this {
    const verifyKey = typeof publicKey === "string" ? createPublicKey(publicKey) : publicKey;
    const signKey = privateKey === undefined ? undefined : typeof privateKey === "string" ? createPrivateKey(privateKey) : privateKey;
    return this.#add(kid, { algorithm: "RS256", verifyKey, signKey, cryptoKey: undefined });
  }

  #add(kid: string, entry: KeyEntry): this {
    if (this.#keys.has(kid)) throw new HttpServerError(HttpMessages.duplicateKeyId(kid));
    this.#keys.set(kid, entry);
    return this;
  }

  /** Signs `payload` as a compact JWT with `kid` in its header; `iat` and `exp` are set. */
  async sign(payload: JwtPayload, options: JwtSignOptions = {}): Promise<string> {
    let kid = options.kid;
    if (kid === undefined)
      for (const [id, entry] of this.#keys)
        if (entry.signKey !== undefined) {
          kid = id;
          break;
        }
    const entry = kid === undefined ? undefined : this.#keys.get(kid);
    if (kid === undefined || entry?.signKey === undefined) throw new HttpServerError(HttpMessages.bearerNoKey);
    const { SignJWT } = await loadJose();
    return new SignJWT(payload)
      .setProtectedHeader({ alg: entry.algorithm, kid, typ: "JWT" })
      .setIssuedAt()
      .setExpirationTime(typeof options.expiresIn === "number" ? `${options.expiresIn}s` : (options.expiresIn ?? "1h"))
      .sign(entry.signKey);
  }

  /** Verifies a compact JWT and returns its claims; throws when the signature, key or lifetime is wrong, or `exp` is missing. */
  async verify(token: string): Promise<JwtPayload> {
    const { jwtVerify } = await loadJose();
    const { payload } = await jwtVerify(token, (header: JWTHeaderParameters) => this.#keyFor(header), {
      algorithms: ["HS256", "RS256"],
      // A token without an expiry would stay valid forever once leaked.
      requiredClaims: ["exp"],
    });
    return payload;
  }

  /** The verification key of the token's `kid` (or the only key), imported once; refused when its algorithm is not the token's. */
  #keyFor(header: JWTHeaderParameters): Promise<webcrypto.CryptoKey> {
    let entry: KeyEntry | undefined;
    if (header.kid !== undefined) entry = this.#keys.get(header.kid);
    else if (this.#keys.size === 1) entry = this.#keys.values().next().value;
    if (entry === undefined || entry.algorithm !== header.alg) throw new HttpServerError(HttpMessages.bearerNoKey);
    const known = entry;
    // a failed import is not kept: the next verification tries again
    known.cryptoKey ??= importVerifyKey(known).catch((error: unknown) => {
      known.cryptoKey = undefined;
      throw error;
    });
    return known.cryptoKey;
  }
}
