import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backupName, dailyDue, namesToPrune, parseBackupName } from '../../backend/backup/backup-names.js';
import { isSafeRelative } from '../../backend/backup/snapshot-format.js';

const at = (iso: string) => new Date(iso);

describe('backup names and retention', () => {
  it('a name encodes kind and time and parses back; other names are not snapshots', () => {
    const name = backupName(at('2026-11-24T10:05:06.789Z'), 'pre-update');
    assert.equal(name, 'backup-2026-11-24T10-05-06-789Z-pre-update.tar.gz');
    assert.deepEqual(parseBackupName(name), { kind: 'pre-update', at: at('2026-11-24T10:05:06.789Z') });
    for (const other of [
      '../x.tar.gz',
      'backup-2026-11-24T10-05-06-789Z-weekly.tar.gz',
      'backup-2026-13-40T10-05-06-789Z-daily.tar.gz',
      '.tmp-x',
    ]) {
      assert.equal(parseBackupName(other), null, other);
    }
  });

  it('keeps the 7 newest dailies and 3 of each automatic kind, all manual ones', () => {
    const names = [
      ...Array.from({ length: 9 }, (_, i) => backupName(at(`2026-01-${String(10 + i).padStart(2, '0')}T00:00:00Z`), 'daily')),
      ...Array.from({ length: 4 }, (_, i) => backupName(at(`2026-02-0${1 + i}T00:00:00Z`), 'pre-restore')),
      ...Array.from({ length: 12 }, (_, i) => backupName(at(`2025-03-${String(10 + i).padStart(2, '0')}T00:00:00Z`), 'manual')),
      'notes.txt',
    ];
    assert.deepEqual(namesToPrune(names).sort(), [names[0], names[1], names[9]].sort());
  });

  it('a daily snapshot is due when the newest daily is 24 hours old or there is none', () => {
    const now = at('2026-11-24T12:00:00Z');
    assert.equal(dailyDue([], now), true);
    assert.equal(dailyDue([backupName(at('2026-11-23T13:00:00Z'), 'daily')], now), false);
    assert.equal(dailyDue([backupName(at('2026-11-23T12:00:00Z'), 'daily')], now), true);
    // A manual snapshot does not count as the daily one.
    assert.equal(dailyDue([backupName(at('2026-11-24T11:00:00Z'), 'manual')], now), true);
  });

  it('paths from a snapshot stay inside the data directory and outside backups/, trash/ and the lock', () => {
    for (const ok of ['config.yaml', 'workspaces/w1/sessions/s.jsonl', 'a..b/c']) assert.equal(isSafeRelative(ok), true, ok);
    for (const bad of [
      '',
      '/etc/passwd',
      '../x',
      'a/../../x',
      'a//b',
      './a',
      'C:/x',
      'a\\..\\b',
      'backups/x',
      'trash/y',
      'selfhost/instance.lock',
      'a\0b',
    ]) {
      assert.equal(isSafeRelative(bad), false, JSON.stringify(bad));
    }
  });
});
