/** Where "now" comes from: the system clock in service, a movable one in tests (no sleeps). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
