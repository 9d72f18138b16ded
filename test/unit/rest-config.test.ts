import { ConfigError, loadConfig } from '../../src/config';

describe('REST configuration', () => {
  it('has documented defaults for the lifecycle of GET /pets/{petId} and no CORS origins', () => {
    const config = loadConfig({});
    expect(config.rest.petsPath).toEqual({
      deprecatedAt: new Date('2026-11-01T00:00:00Z'),
      sunsetAt: new Date('2027-07-01T00:00:00Z'),
      docsUrl: '/docs#/Pets/getPetById',
    });
    expect(config.cors.origins).toEqual([]);
  });

  it('reads dates, the docs URL and the origins from the environment', () => {
    const config = loadConfig({
      PETS_PATH_DEPRECATION_DATE: '2026-12-01',
      PETS_PATH_SUNSET_DATE: '2027-01-31T18:30:00+01:00',
      DEPRECATION_DOCS_URL: 'https://docs.example.com/deprecations',
      CORS_ORIGINS: 'https://a.example.com,http://localhost:3000',
    });
    expect(config.rest.petsPath.deprecatedAt.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(config.rest.petsPath.sunsetAt.toISOString()).toBe('2027-01-31T17:30:00.000Z');
    expect(config.rest.petsPath.docsUrl).toBe('https://docs.example.com/deprecations');
    expect(config.cors.origins).toEqual(['https://a.example.com', 'http://localhost:3000']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).cors.origins).toBe('*');
  });

  it.each([
    [{ PETS_PATH_SUNSET_DATE: 'next summer' }, 'PETS_PATH_SUNSET_DATE'],
    [{ PETS_PATH_DEPRECATION_DATE: '2026-13-01' }, 'PETS_PATH_DEPRECATION_DATE'],
    [
      { PETS_PATH_DEPRECATION_DATE: '2027-08-01', PETS_PATH_SUNSET_DATE: '2027-07-01' },
      'PETS_PATH_SUNSET_DATE: must be later',
    ],
    [{ DEPRECATION_DOCS_URL: 'docs page' }, 'DEPRECATION_DOCS_URL'],
    [{ CORS_ORIGINS: 'https://a.example.com/app' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: '*,https://a.example.com' }, 'CORS_ORIGINS'],
  ])('refuses %j, naming the variable', (env, named) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(named);
  });
});
