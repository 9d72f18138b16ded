/**
 * "Now", injectable: the app asks a Clock instead of `new Date()` wherever time decides behaviour
 * (the sunset of a deprecated path), so tests can stand on either side of a date without waiting.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
