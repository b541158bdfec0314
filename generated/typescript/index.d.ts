/**
 * Generated file: do not edit by hand. The types of the latest ATIF version, and every
 * document type of @atif-spec/types as one namespace per format and version.
 * Regenerate: nox -s generate
 */
export * from "./atif/v1.8/trajectory.js";
export * as AtifV10 from "./atif/v1.0/trajectory.js";
export * as AtifV11 from "./atif/v1.1/trajectory.js";
export * as AtifV12 from "./atif/v1.2/trajectory.js";
export * as AtifV13 from "./atif/v1.3/trajectory.js";
export * as AtifV14 from "./atif/v1.4/trajectory.js";
export * as AtifV15 from "./atif/v1.5/trajectory.js";
export * as AtifV16 from "./atif/v1.6/trajectory.js";
export * as AtifV17 from "./atif/v1.7/trajectory.js";
export * as AtifV18 from "./atif/v1.8/trajectory.js";
export * as TaoV010 from "./tao/v0.1.0/trace-record.js";
export * as TaoV020 from "./tao/v0.2.0/trace-record.js";
export * as TaoV030 from "./tao/v0.3.0/trace-record.js";
export * as TaoV060 from "./tao/v0.6.0/trace-record.js";
export * as TaoV070 from "./tao/v0.7.0/trace-record.js";
export * as TaoV090 from "./tao/v0.9.0/trace-record.js";
export * as TrajectorySdkV04 from "./trajectory-sdk/v0.4/trajectory.js";
export * as StepSubstepV10 from "./step-substep/v1.0/run-log.js";
export * as StepSubstepV10LegacyTurnEvent from "./step-substep/v1.0/legacy-turn-event.js";
export * as AtofV01 from "./atof/v0.1/event.js";
export * as OtelV1410 from "./otel/v1.41.0/traces-data.js";
