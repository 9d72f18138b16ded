/** Messages between the benchmark runner and the agent preloaded into each target (agent.ts). */
export interface AgentRequest {
  type: 'stats';
  seq: number;
}

export interface AgentReply {
  type: 'stats';
  seq: number;
  /** SQL statements sent to the database since the process started. */
  statements: number;
  /** user + system CPU time of the whole process since it started, in microseconds. */
  cpuMicros: number;
}
