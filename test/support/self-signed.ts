import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** A certificate and its key (PEM), and where the certificate's file is. */
export interface SelfSigned {
  certificate: string;
  key: string;
  certificatePath: string;
}

/**
 * Makes a self-signed certificate for 127.0.0.1 (an EC key, valid one day) with `openssl` in
 * `folder` (`certificate.pem`, `key.pem`): a TLS server no authority Node knows has signed.
 * @throws when `openssl` cannot run.
 */
export function selfSignedCertificate(folder: string): SelfSigned {
  const [certificatePath, keyPath] = [join(folder, "certificate.pem"), join(folder, "key.pem")];
  execFileSync(
    "openssl",
    [
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ["-keyout", keyPath, "-out", certificatePath, "-days", "1", "-subj", "/CN=127.0.0.1"],
      ["-addext", "subjectAltName=IP:127.0.0.1"],
    ].flat(),
    { stdio: "ignore" },
  );
  const certificate = readFileSync(certificatePath, "utf8");
  return { certificate, key: readFileSync(keyPath, "utf8"), certificatePath };
}
