import { expect, test } from "vitest";
import { secretValues } from "../../src/events/secrets.js";
import { droppedVariables } from "../../src/session/command-environment.js";

// Session 27's trial: the rule `/KEY|SECRET|TOKEN|PASSWORD|PASSWD/i` took settings from commands
// (`TOKENIZERS_PARALLELISM`, `KEYMAP`, `MONKEY_PATCH`, `XKB_DEFAULT_KEYMAP`). Names are now read by
// segments (src/events/secrets.ts `isSecretName`); each row is a real variable's name, and whether
// a command loses it and whether its value is redacted are asserted for the whole table at once:
// both follow the one rule (a variable a command keeps is not redacted, one it loses is).

/** Variables commands do not get and whose values are redacted. */
const SECRET = [
  "API_KEY",
  "APIKEY",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "STRIPE_SECRET_KEY",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "npm_config__authToken",
  "HF_TOKEN",
  "HUGGING_FACE_HUB_TOKEN",
  "SLACK_BOT_TOKEN",
  "VAULT_TOKEN",
  "CI_JOB_TOKEN",
  "PGPASSWORD",
  "MYSQL_PWD",
  "MYSQL_ROOT_PASSWORD",
  "DB_PASS",
  "SSHPASS",
  "REDIS_PASSWD",
  "GPG_PASSPHRASE",
  "JWT_SECRET",
  "CLIENT_SECRETS",
  "SECRETKEY",
  "DJANGO_SECRET_KEY",
  "TF_VAR_db_password",
  "SENTRY_AUTH_TOKEN",
  "docker.registry.password",
  "cloudflare-api-token",
  // The trial of round 3 session 34 (MEDIUM 9): `DEPLOY_CREDS` reached commands, unredacted.
  "DEPLOY_CREDS",
  "CI_CRED",
  "AWS_CREDENTIALS",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "PROXY_CREDENTIALS_JSON",
  "BASIC_AUTH",
  "npm_config__auth",
  "GITHUB_OAUTH",
  "DOCKER_AUTH_CONFIG",
  // Trial 47 F3: a CI job's identity tokens and a login token passed (GitLab's job JWTs,
  // SonarQube's login token; a personal access token by its short name).
  "CI_JOB_JWT",
  "CI_JOB_JWT_V1",
  "CI_JOB_JWT_V2",
  "SONAR_LOGIN",
  "GH_PAT",
  "AZURE_DEVOPS_EXT_PAT",
];

/** Variables commands get, whose values are not redacted. */
const SETTING = [
  "TOKENIZERS_PARALLELISM",
  "KEYMAP",
  "XKB_DEFAULT_KEYMAP",
  "MONKEY_PATCH",
  "KEYBOARD_LAYOUT",
  "GNOME_KEYRING_CONTROL",
  "PASSENGER_APP_ENV",
  "NO_PROXY_BYPASS",
  "HOCKEY_APP_ID",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "XAUTHORITY",
  "HOME",
  "PATH",
  "PWD",
  "OLDPWD",
  "SSH_AUTH_SOCK",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AUTH_DOMAIN",
  "USE_AUTH",
  "SACRED_TEXT",
  "AUTHOR",
  "LOGNAME",
  "LOGIN_SHELL",
  "JWT_ISSUER",
  "JWT_ALGORITHM",
  "PATH_INFO",
  "CI_JOB_ID",
  "CI_REGISTRY_USER",
];

test("a command loses exactly the secret-looking names, and those alone are redacted: one rule", () => {
  const names = [...SECRET, ...SETTING];
  const environment = Object.fromEntries(names.map((name) => [name, `value-of-${name}`]));
  const table = names.map((name) => ({
    name,
    dropped: droppedVariables(environment, []).includes(name),
    redacted: secretValues(environment).some((secret) => secret.name === name),
  }));
  expect(table).toEqual(
    names.map((name) => ({
      name,
      dropped: SECRET.includes(name),
      redacted: SECRET.includes(name),
    })),
  );
  expect(SECRET.length + SETTING.length).toBeGreaterThanOrEqual(30);
});
