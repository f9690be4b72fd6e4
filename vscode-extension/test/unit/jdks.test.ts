import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJDKs, jdkItems } from '../../src/jdks';

describe('jdks', () => {
  test('decodes jdks/list strictly and lists the newest first', () => {
    const jdks = decodeJDKs([
      { home: '/usr/lib/jvm/java-17-openjdk-amd64', version: 17, full: '17.0.21', vendor: 'Debian', compiler: true },
      { home: '/usr/lib/jvm/temurin-25-jdk-amd64', version: 25, full: '25.0.3', vendor: 'Eclipse Adoptium', compiler: true },
      { home: '/opt/jre-21', version: 21, full: '21.0.5', compiler: false },
      { home: '', version: 11 },
      { home: '/x', version: 'eleven' },
      'garbage',
    ]);
    assert.equal(jdks.length, 3);
    const items = jdkItems(jdks);
    assert.deepEqual(
      items.map((i) => i.label),
      ['Java 25', 'Java 21', 'Java 17'],
    );
    assert.equal(items[0].detail, '/usr/lib/jvm/temurin-25-jdk-amd64');
    assert.equal(items[0].description, '25.0.3 · Eclipse Adoptium');
    assert.equal(items[1].description, '21.0.5 · JRE (no javac)');
    assert.deepEqual(decodeJDKs(undefined), []);
  });
});
