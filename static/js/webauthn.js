// Passkeys in the browser: the server's JSON options go to navigator.credentials, and
// the credential goes back as JSON (the shape of PublicKeyCredential.toJSON()).

function bytes(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "=")), (c) => c.charCodeAt(0));
}

function base64url(buffer) {
  const text = String.fromCharCode(...new Uint8Array(buffer));
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const descriptors = (list) => (list || []).map((c) => ({ ...c, id: bytes(c.id) }));

function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: base64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = base64url(r.attestationObject);
    response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    response.authenticatorData = base64url(r.authenticatorData);
    response.signature = base64url(r.signature);
    if (r.userHandle) response.userHandle = base64url(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: base64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment,
  };
}

async function post(url, body = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new Error((data && data.detail) || `the server answered ${response.status}`);
  return data;
}

export function passkeysSupported() {
  return Boolean(window.PublicKeyCredential && navigator.credentials);
}

// Create a passkey for the signed-in player and have the server keep it.
export async function registerPasskey() {
  const options = await post("/api/v1/players/me/passkeys/options");
  const publicKey = {
    ...options,
    challenge: bytes(options.challenge),
    user: { ...options.user, id: bytes(options.user.id) },
    excludeCredentials: descriptors(options.excludeCredentials),
  };
  const credential = await navigator.credentials.create({ publicKey });
  return post("/api/v1/players/me/passkeys", credentialJSON(credential));
}

// Sign this browser in with one of the site's passkeys; the server sets the cookie.
export async function signInWithPasskey() {
  const options = await post("/api/v1/passkeys/login/options");
  const publicKey = {
    ...options,
    challenge: bytes(options.challenge),
    allowCredentials: descriptors(options.allowCredentials),
  };
  const credential = await navigator.credentials.get({ publicKey });
  return post("/api/v1/passkeys/login", credentialJSON(credential));
}

export function signOut() {
  return post("/api/v1/players/me/sign-out");
}
