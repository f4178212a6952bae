import type { webcrypto } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

/**
 * A throwaway private CA and certificates for the TLS tests of the production Temporal path:
 * the server's (serverAuth for the frontend, clientAuth too as temporal-server presents it to its
 * own frontend), a client's signed by the same CA, and one signed by a stranger CA.
 */
export interface TestPki {
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A client certificate the server's CA did not sign. */
  strangerCertFile: string;
  strangerKeyFile: string;
  serverName: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key)).toString('base64');
  return `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)?.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

async function newKeys(): Promise<webcrypto.CryptoKeyPair> {
  return crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
}

async function createCa(name: string) {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: ALGORITHM,
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}

async function issue(
  ca: Awaited<ReturnType<typeof createCa>>,
  subject: string,
  usages: x509.ExtendedKeyUsage[],
  names: x509.JsonGeneralName[],
) {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${subject}`,
    issuer: ca.cert.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALGORITHM,
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [
      new x509.BasicConstraintsExtension(false),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension(usages),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
}

/** Writes the PEM files into `dir`. */
export async function createTestPki(dir: string): Promise<TestPki> {
  x509.cryptoProvider.set(crypto);
  const serverName = 'temporal.weft.test';
  const ca = await createCa('Weft test CA');
  const stranger = await createCa('Stranger CA');
  const { serverAuth, clientAuth } = x509.ExtendedKeyUsage;
  const server = await issue(
    ca,
    serverName,
    [serverAuth, clientAuth],
    [
      { type: 'dns', value: serverName },
      { type: 'ip', value: '127.0.0.1' },
    ],
  );
  const client = await issue(ca, 'weft-worker', [clientAuth], []);
  const strangerClient = await issue(stranger, 'weft-worker', [clientAuth], []);
  const file = async (name: string, text: string) => {
    const target = path.join(dir, name);
    await writeFile(target, text, { mode: 0o600 });
    return target;
  };
  return {
    caFile: await file('ca.pem', ca.cert.toString('pem')),
    serverCertFile: await file('server.pem', server.cert),
    serverKeyFile: await file('server-key.pem', server.key),
    clientCertFile: await file('client.pem', client.cert),
    clientKeyFile: await file('client-key.pem', client.key),
    strangerCertFile: await file('stranger.pem', strangerClient.cert),
    strangerKeyFile: await file('stranger-key.pem', strangerClient.key),
    serverName,
  };
}
