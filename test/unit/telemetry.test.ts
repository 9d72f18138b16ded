import { OperationNames, OTHER_OPERATION, ANONYMOUS_OPERATION } from '../../src/telemetry/metrics';
import { tracingRequested } from '../../src/telemetry/tracing';

describe('the operation-name label', () => {
  it('keeps the first N distinct names and folds every later one into __other', () => {
    const names = new OperationNames(2);
    expect(['A', 'B', 'A', 'C', 'B', 'D'].map((n) => names.label(n))).toEqual([
      'A',
      'B',
      'A',
      OTHER_OPERATION,
      'B',
      OTHER_OPERATION,
    ]);
    expect(names.label(null)).toBe(ANONYMOUS_OPERATION);
  });
});

describe('whether tracing is asked for', () => {
  it('is off when no OTEL_* variable names where spans go', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBe(false);
  });
  it('is on with an OTLP endpoint or an exporter, unless disabled', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(
      false,
    );
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(false);
  });
});
