import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyDeviceEvent, applyVMEvent, decodeDevices, decodeVMs, deviceOf, groupByDevice, localDevice, scanRangeOf, scanWelcome, unattachable, vmContextValue, vmDescription, vmLabel, vmStates, vmTitle, vmTooltip } from '../../src/vms';

// As `ddmbridge vms --json` prints them (bridge.VMInfo).
const listed = [
  { id: '2', address: '127.0.0.1:8001', pid: 4711, name: 'com.example.Sleeper', vm: 'OpenJDK 64-Bit Server VM v17', ddm: false, waiting: true, debugger: false, debugPort: 8601, current: false, protocol: 'jdwp' },
  { id: '1', address: '127.0.0.1:8000', pid: 4700, name: 'com.example.app', vm: 'Dalvik v1.6.0', ddm: true, waiting: false, debugger: true, debugPort: 8600, current: true, protocol: 'ddm' },
  { id: '3', address: 'emulator-5554/1234', pid: 1234, name: 'com.android.settings', vm: 'Dalvik v2.1.0', ddm: true, waiting: false, debugger: false, debugPort: 8602, serial: 'emulator-5554', device: 'sdk_gphone64_x86_64' },
  { address: 'no id' },
];

describe('VM list', () => {
  test('decodes and groups by device, this computer first', () => {
    const vms = decodeVMs(listed);
    assert.equal(vms.length, 3);
    assert.equal(deviceOf(vms[0]), localDevice);
    assert.equal(deviceOf(vms[2]), 'emulator-5554');
    assert.equal(deviceOf({ ...vms[2], serial: undefined }), 'emulator-5554', 'from the SERIAL/PID address');
    assert.equal(deviceOf({ ...vms[2], serial: undefined, address: '127.0.0.1:5555/1234' }), '127.0.0.1:5555');
    assert.equal(deviceOf({ ...vms[0], address: '10.0.0.7:8000' }), '10.0.0.7');
    const groups = groupByDevice(vms);
    assert.deepEqual(
      groups.map((g) => [g.device, g.vms.map((v) => v.id)]),
      [
        [localDevice, ['1', '2']],
        ['emulator-5554', ['3']],
      ],
    );
    assert.deepEqual(decodeVMs({ vms: listed }).length, 3);
    assert.equal(groups[1].label, 'sdk gphone64 x86 64 (emulator-5554)');
  });

  test('devices without VMs are listed too, and device notifications apply', () => {
    let devices = decodeDevices([
      { serial: 'emulator-5554', state: 'device', online: true, model: 'sdk_gphone64_x86_64' },
      { serial: 'R58M123', state: 'unauthorized', online: false },
    ]);
    const groups = groupByDevice(decodeVMs(listed), devices);
    assert.deepEqual(
      groups.map((g) => [g.device, g.state, g.vms.length]),
      [
        [localDevice, undefined, 2],
        ['emulator-5554', 'device', 1],
        ['R58M123', 'unauthorized', 0],
      ],
    );
    devices = applyDeviceEvent(devices, 'changed', { serial: 'R58M123', state: 'device', online: true, model: 'SM_G991B' });
    assert.equal(devices.find((d) => d.serial === 'R58M123')?.online, true);
    devices = applyDeviceEvent(devices, 'removed', { serial: 'emulator-5554', state: 'gone' });
    assert.deepEqual(devices.map((d) => d.serial), ['R58M123']);
  });

  test('states, descriptions and context values', () => {
    const [waiting, attached] = decodeVMs(listed);
    assert.deepEqual(vmStates(waiting), ['waiting for debugger']);
    assert.deepEqual(vmStates(attached), ['current', 'debugger attached', 'DDM']);
    const [sim] = decodeVMs([{ ...listed[1], simulated: true }]);
    assert.deepEqual(vmStates(sim), ['current', 'debugger attached', 'DDM', 'simulated'], 'a simulated VM says so');
    assert.match(vmTooltip(sim), /simulated: ddmbridge's simulator, whose DDM data .* is made up/);
    assert.equal(vmTitle(sim), `${vmLabel(sim)} (simulated)`, 'the heap and threads views name it so');
    assert.equal(vmTitle(attached), vmLabel(attached));
    assert.equal(vmDescription(waiting), 'pid 4711 · 127.0.0.1:8001 · waiting for debugger');
    assert.equal(vmContextValue(attached), 'vm.ddm.attached.current');
    assert.equal(vmContextValue(waiting), 'vm.jdwp');
  });

  test('applies added, changed and removed notifications', () => {
    let vms = decodeVMs(listed.slice(0, 2));
    vms = applyVMEvent(vms, 'added', listed[2]);
    assert.equal(vms.length, 3);
    vms = applyVMEvent(vms, 'changed', { vm: { ...listed[0], current: true } });
    assert.deepEqual(
      vms.filter((v) => v.current).map((v) => v.id),
      ['2'],
    );
    vms = applyVMEvent(vms, 'removed', { id: '1' });
    assert.deepEqual(vms.map((v) => v.id).sort(), ['2', '3']);
    vms = applyVMEvent(vms, 'removed', listed[2]);
    assert.deepEqual(vms.map((v) => v.id), ['2']);
  });

  // As `ddmbridge vms --json` prints a current (track-app) device's apps.
  const current = [
    { id: '4', address: 'emu/1001', pid: 1001, name: 'com.example.waiting', vm: 'Dalvik v2.1.0', ddm: true, waiting: true, debugger: false, debugPort: 8603, serial: 'emu',
      process: 'com.example.waiting', packages: ['com.example.waiting'], debuggable: true, profileable: false, waitingForDebugger: true, frozen: false },
    { id: '5', address: 'emu/1002', pid: 1002, name: 'com.example.cached', ddm: false, waiting: false, debugger: false, debugPort: 0, serial: 'emu', listedOnly: true,
      process: 'com.example.cached', packages: ['com.example.cached'], debuggable: true, frozen: true, note: 'frozen by the cached-apps freezer: … Bring the app to the foreground' },
    { id: '6', address: 'emu/1003', pid: 1003, name: '', ddm: false, waiting: false, debugger: false, debugPort: 0, serial: 'emu', listedOnly: true,
      process: 'com.example.release', debuggable: false, profileable: true, note: 'not debuggable: … Install a debug build' },
  ];

  test('track-app entries: frozen and non-debuggable apps are refused in words, the waiting app is not', () => {
    const [waiting, frozen, release] = decodeVMs(current);
    assert.equal(unattachable(waiting), undefined);
    assert.deepEqual(vmStates(waiting), ['waiting for debugger', 'DDM']);
    assert.deepEqual(waiting.packages, ['com.example.waiting']);
    assert.equal(waiting.waitingForDebugger, true);
    assert.match(unattachable(frozen) ?? '', /foreground/);
    assert.deepEqual(vmStates(frozen), ['frozen']);
    assert.match(unattachable(release) ?? '', /debug build/);
    assert.deepEqual(vmStates(release), ['not debuggable']);
    assert.equal(vmContextValue(frozen), 'listed', 'no VM actions on an entry without a JDWP connection');
    assert.equal(vmContextValue(waiting), 'vm.ddm');
    assert.equal(vmLabel(release), 'com.example.release', 'named after its process');
    assert.equal(decodeVMs(listed)[0].frozen, undefined, 'absent where the device says nothing');
    assert.equal(unattachable({ ...waiting, listedOnly: true, note: undefined }), 'not monitored yet: try again in a moment');
  });
});

describe('the ports the empty explorer says are scanned', () => {
  test('serveArgs --scan, in either spelling, the last one winning; the default otherwise', () => {
    assert.equal(scanRangeOf([]), undefined);
    assert.equal(scanRangeOf(['--no-adb']), undefined);
    assert.equal(scanRangeOf(['--scan', '127.0.0.1:9000-9010']), '127.0.0.1:9000-9010');
    assert.equal(scanRangeOf(['--scan=127.0.0.1:9000-9010', '--scan', '10.0.0.2:5005']), '10.0.0.2:5005');
    assert.equal(scanRangeOf(['--scan', '']), '');
    assert.deepEqual(scanWelcome([]), { mode: 'default' });
    assert.deepEqual(scanWelcome(['--scan', '127.0.0.1:9000-9010,127.0.0.1:5005']), {
      mode: 'custom',
      message: 'Scanning 127.0.0.1:9000-9010, 127.0.0.1:5005 for JDWP agents (ddmbridge.serveArgs).',
    });
    assert.equal(scanWelcome(['--scan=']).mode, 'none');
  });
});
