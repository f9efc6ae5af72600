import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);

// ajv is CommonJS: its default export is the class.
type ErrorObject = { instancePath: string; message?: string; params: Record<string, unknown> };
type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const Ajv = require('ajv') as new (options: object) => { compile(schema: object): ValidateFunction };

const config = parse(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<string, any>;
const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
// The same draft-07 schema electron-builder validates its configuration with before building.
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

function problems(candidate: unknown): string[] {
  if (validate(candidate)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

describe('electron-builder.yml against electron-builder’s own schema (app-builder-lib/scheme.json)', () => {
  it('is valid for the installed electron-builder', () => {
    assert.deepEqual(problems(config), []);
  });

  it('the validator catches an unknown key (the includeSubNodeModules that broke npm run dist)', () => {
    const broken = { ...config, includeSubNodeModules: false };
    assert.ok(problems(broken).some((p) => p.includes('additionalProperty') && p.includes('includeSubNodeModules')));
    assert.notDeepEqual(problems({ ...config, linux: { ...config.linux, target: 42 } }), []);
  });
});

describe('electron-builder.yml: what ships and how', () => {
  it('sets the Electron fuses for a backend in a utility process', () => {
    assert.deepEqual(config.electronFuses, {
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('keeps node_modules and source maps out of the asar', () => {
    assert.ok(config.files.includes('!node_modules{,/**/*}'));
    assert.ok(config.files.includes('!**/*.map'));
    assert.equal(config.asarUnpack, undefined, 'nothing is unpacked next to the asar');
  });

  it('makes the .deb the primary Linux package and never requires code signing', () => {
    assert.equal(config.linux.target[0], 'deb');
    assert.equal(config.forceCodeSigning, false);
    assert.equal(config.mac.hardenedRuntime, true);
    // Credentials come only from the environment (CSC_LINK, APPLE_ID …), never from this file.
    for (const key of ['cscLink', 'cscKeyPassword', 'certificatePassword', 'certificateFile']) {
      assert.equal(JSON.stringify(config).includes(`"${key}"`), false, key);
    }
  });

  it('names an author (the Windows publisher / CompanyName)', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.match(pkg.author?.name ?? '', /\S/);
    assert.match(pkg.devDependencies.electron, /^\^45\./, 'Electron on a supported line');
    assert.equal(pkg.allowScripts.electron, false, 'the Electron download stays opt-in (npm start fetches it)');
  });
});
