/**
 * The floors of `shared/` (ARCHITECTURE.md, "The floors"), checked by dependency-cruiser (`npm run lint`).
 *
 * A unit is a top folder of `shared/` (`shared/users/`) or a file at its top (`shared/config.ts`).
 * Floors go bottom to top; within the ground, model and top floors each unit may import the units
 * listed before it, never one after it, so no two units can import each other. The use-case floor
 * is flat: a use case imports no other use case (they share a port or a message type of a floor
 * below). Test files (`*.test.ts`) are left out: a test may use any floor to build its fixture.
 */
const FLOORS = [
  {
    name: 'ground',
    units: [
      'settings', 'config.ts', 'concurrency', 'resilience', 'validation', 'errors', 'ports', 'logging', 'telemetry',
      'lifecycle', 'storage', 'azure', 'db', 'background',
    ],
  },
  { name: 'model', units: ['audit', 'throttles', 'users', 'children', 'sessions', 'announcements', 'messages'] },
  {
    name: 'use cases',
    flat: true,
    units: ['auth', 'family', 'data-rights', 'announcement-workflow', 'notifications', 'cost', 'ingress'],
  },
  { name: 'http and composition root', units: ['http', 'health', 'composition-root.ts', 'composition', 'openapi'] },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path pattern of a unit: a folder and everything under it, or one file. */
const unitPath = (unit) => (unit.endsWith('.ts') ? `^shared/${escape(unit)}$` : `^shared/${escape(unit)}/`);
const anyOf = (units) => units.map(unitPath).join('|');
const TEST_FILE = '\\.test\\.ts$';

const allUnits = FLOORS.flatMap((floor) => floor.units);
const layerRules = FLOORS.flatMap((floor, floorIndex) =>
  floor.units.flatMap((unit, unitIndex) => {
    const sameFloor = floor.flat
      ? floor.units.filter((other) => other !== unit)
      : floor.units.slice(unitIndex + 1);
    const above = FLOORS.slice(floorIndex + 1).flatMap((higher) => higher.units);
    const below = [
      ...FLOORS.slice(0, floorIndex).flatMap((lower) => lower.units),
      ...(floor.flat ? [] : floor.units.slice(0, unitIndex)),
    ];
    const forbidden = [...sameFloor, ...above];
    // The top floor's last unit may import every other one: no rule to write.
    if (forbidden.length === 0) return [];
    return {
      name: `layer-order-${unit.replace(/\.ts$/, '')}`,
      severity: 'error',
      comment:
        `shared/${unit} is on the ${floor.name} floor: it may import only ` +
        `${below.length ? below.join(', ') : 'nothing else in shared/'} (ARCHITECTURE.md, "The floors").`,
      from: { path: unitPath(unit), pathNot: TEST_FILE },
      to: { path: anyOf(forbidden) },
    };
  }),
);

/**
 * The notifications subsystem's own floors (ARCHITECTURE.md, "The notifications subsystem"), bottom
 * to top: a subfolder of `shared/notifications/` imports only subfolders of the floors below it,
 * never one beside it or above it, and never the subsystem's entry files at its top (which import
 * the subfolders). Outside the subsystem, code imports only those entry files.
 */
const NOTIFICATION_FLOORS = [
  { name: 'providers', units: ['providers'] },
  { name: 'ledger', units: ['ledger'] },
  { name: 'engine', units: ['engine'] },
  { name: 'channels', units: ['channels'] },
  { name: 'jobs', units: ['jobs', 'preferences'] },
];
const NOTIFICATIONS = '^shared/notifications/';
const notificationUnitPath = (unit) => `${NOTIFICATIONS}${escape(unit)}/`;
const allNotificationUnits = NOTIFICATION_FLOORS.flatMap((floor) => floor.units);
const NOTIFICATION_ENTRY = `${NOTIFICATIONS}[^/]+\\.ts$`;
const notificationRules = NOTIFICATION_FLOORS.flatMap((floor, floorIndex) =>
  floor.units.flatMap((unit) => {
    const besideOrAbove = [
      ...floor.units.filter((other) => other !== unit),
      ...NOTIFICATION_FLOORS.slice(floorIndex + 1).flatMap((higher) => higher.units),
    ];
    const below = NOTIFICATION_FLOORS.slice(0, floorIndex).flatMap((lower) => lower.units);
    const forbidden = [...besideOrAbove.map(notificationUnitPath), NOTIFICATION_ENTRY];
    return {
      name: `notifications-floor-${unit}`,
      severity: 'error',
      comment:
        `shared/notifications/${unit}/ is on the subsystem's ${floor.name} floor: it may import only ` +
        `${below.length ? below.map((lower) => `${lower}/`).join(', ') : 'nothing else of the subsystem'} ` +
        '(ARCHITECTURE.md, "The notifications subsystem").',
      from: { path: notificationUnitPath(unit), pathNot: TEST_FILE },
      to: { path: forbidden.join('|') },
    };
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    ...notificationRules,
    {
      name: 'notifications-not-on-a-floor',
      severity: 'error',
      comment:
        'Every folder of shared/notifications/ has a floor: add a new one to NOTIFICATION_FLOORS here and to ' +
        'ARCHITECTURE.md; files at its top are its entry points.',
      from: {
        path: NOTIFICATIONS,
        pathNot: `${allNotificationUnits.map(notificationUnitPath).join('|')}|${NOTIFICATION_ENTRY}|${TEST_FILE}`,
      },
      to: {},
    },
    {
      name: 'notifications-through-its-entry',
      severity: 'error',
      comment:
        'Outside shared/notifications/, code imports the subsystem through its entry point ' +
        '(shared/notifications/index.ts), never a file of its floors; tests and the bench may reach in.',
      from: { path: '^(shared|functions|scripts|devhost)/', pathNot: `${NOTIFICATIONS}|${TEST_FILE}` },
      to: { path: `${NOTIFICATIONS}[^/]+/` },
    },
    {
      name: 'not-on-a-floor',
      severity: 'error',
      comment: 'Every folder of shared/ has a floor: add a new one to FLOORS here and to ARCHITECTURE.md\'s code map.',
      from: { path: '^shared/', pathNot: `${anyOf(allUnits)}|${TEST_FILE}` },
      to: {},
    },
    {
      name: 'import-not-on-a-floor',
      severity: 'error',
      comment: 'Every folder of shared/ has a floor: add a new one to FLOORS here and to ARCHITECTURE.md\'s code map.',
      from: { path: '^shared/', pathNot: TEST_FILE },
      to: { path: '^shared/', pathNot: anyOf(allUnits) },
    },
    {
      name: 'shared-below-the-app',
      severity: 'error',
      comment: 'shared/ is what functions/, devhost/, scripts/ and bench/ build on; it never imports them, nor test/.',
      from: { path: '^shared/', pathNot: TEST_FILE },
      to: { path: '^(functions|devhost|scripts|bench|test)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module imports itself through others.',
      from: { path: '^shared/', pathNot: TEST_FILE },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too: a model type imported from a use case ties the floors all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
