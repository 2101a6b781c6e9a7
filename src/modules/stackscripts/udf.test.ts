import { describe, expect, it } from 'vitest';
import { FieldErrors } from '../../errors/errors.js';
import { checkUdfData, parseUdfs } from './udf.js';

const SCRIPT = `#!/bin/bash
# <UDF name="DB_PASSWORD" Label="Database password" example="hunter2" />
# <udf NAME="SIZE" label="Size" oneOf="small,medium,large" default="small"/>
# <UDF name="ADDONS" label="Add-ons" manyOf="redis, memcached,nginx" />
# <UDF label="no name" />
# <UDF name="bad name" label="skipped" />
# <UDF name="DB_PASSWORD" label="repeated" />
echo "$DB_PASSWORD"`;

const problems = (fe: FieldErrors) => {
  try {
    fe.throwIfAny();
    return [];
  } catch (err) {
    return (err as { errors: { field: string; reason: string }[] }).errors;
  }
};

describe('StackScript user-defined fields', () => {
  it('parseUdfs: every named <UDF> tag in order, attribute names case-insensitive', () => {
    expect(parseUdfs(SCRIPT)).toEqual([
      { name: 'DB_PASSWORD', label: 'Database password', example: 'hunter2' },
      { name: 'SIZE', label: 'Size', example: '', oneOf: 'small,medium,large', default: 'small' },
      { name: 'ADDONS', label: 'Add-ons', example: '', manyOf: 'redis, memcached,nginx' },
    ]);
    expect(parseUdfs('#!/bin/sh\necho hi')).toEqual([]);
  });

  it('checkUdfData: required fields, oneOf, manyOf and defaults', () => {
    const fields = parseUdfs(SCRIPT);
    const ok = new FieldErrors();
    expect(checkUdfData(ok, fields, { DB_PASSWORD: 'pw', ADDONS: 'redis,nginx' })).toEqual({
      DB_PASSWORD: 'pw',
      SIZE: 'small',
      ADDONS: 'redis,nginx',
    });
    expect(problems(ok)).toEqual([]);

    const missing = new FieldErrors();
    checkUdfData(missing, fields, undefined);
    expect(problems(missing).map((p) => p.field)).toEqual([
      'stackscript_data.DB_PASSWORD',
      'stackscript_data.ADDONS',
    ]);

    const wrong = new FieldErrors();
    checkUdfData(wrong, fields, { DB_PASSWORD: 7, SIZE: 'huge', ADDONS: 'redis,apache' });
    expect(problems(wrong).map((p) => p.field)).toEqual([
      'stackscript_data.DB_PASSWORD',
      'stackscript_data.SIZE',
      'stackscript_data.ADDONS',
    ]);
  });
});
