/**
 * The Kubernetes examples in deploy/kubernetes/, checked offline: every object against the
 * Kubernetes API schemas (the `kubernetes-models` package: types, required fields, enums), the
 * agent-sandbox SandboxTemplate's own fields against its v1beta1 CRD's and its pod template,
 * volume claims and network rules against the Kubernetes schemas; and what makes them work with
 * this agent: `serve` with flags it accepts, probes on /health and /ready at the port it listens
 * on, the token from the Secret, a non-root user, requests set, the sessions volume where the
 * image keeps them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PersistentVolumeClaim, PodTemplateSpec, Secret, Service } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../src/cli-args.js';

const DIR = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));
/** Where the image keeps sessions (the node user's state directory, Dockerfile). */
const STATE_DIR = '/home/node/.local/state/openai-acp';
/** The fields of an agent-sandbox v1beta1 SandboxTemplate's spec (kubernetes-sigs/agent-sandbox, k8s/crds/extensions.agents.x-k8s.io_sandboxtemplates.yaml). */
const SANDBOX_TEMPLATE_FIELDS = [
  'envVarsInjectionPolicy',
  'networkPolicy',
  'networkPolicyManagement',
  'podTemplate',
  'service',
  'volumeClaimTemplates',
  'volumeClaimTemplatesPolicy',
];

/** The YAML documents of a file, as plain objects. */
function documents(file: string): any[] {
  return parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS();
  });
}

/** What the container serves: its `serve` flags as the CLI reads them, its port, probes and security. */
function expectServes(spec: any, secret: any): void {
  const [container] = spec.containers;
  const command = parseCliArgs(container.args);
  expect(command.kind).toBe('serve');
  if (command.kind !== 'serve') return;
  expect(command.serve.host).toBe('0.0.0.0');
  expect(command.serve.root).toBe('/workspace');
  const port = container.ports.find((p: any) => p.name === 'acp').containerPort;
  expect(port).toBe(command.serve.port);
  expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'acp' });
  expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'acp' });
  // The secrets as files of the Secret's volume, never in the environment (nor a literal).
  const names = container.env.map((e: any) => e.name);
  expect(names).not.toContain('OPENAI_ACP_SERVE_TOKEN');
  expect(names).not.toContain('OPENAI_API_KEY');
  for (const [variable, key] of [
    ['OPENAI_ACP_SERVE_TOKEN_FILE', 'serve-token'],
    ['OPENAI_API_KEY_FILE', 'openai-api-key'],
  ]) {
    const file = container.env.find((e: any) => e.name === variable).value as string;
    const mount = container.volumeMounts.find((m: any) => file.startsWith(`${m.mountPath}/`));
    expect(mount.readOnly).toBe(true);
    expect(file).toBe(`${mount.mountPath}/${key}`);
    const volume = spec.volumes.find((v: any) => v.name === mount.name);
    expect(volume.secret.secretName).toBe(secret.metadata.name);
    expect(Object.keys(secret.stringData)).toContain(key);
  }
  // The pod is the boundary: the sandbox is off on purpose (the manifest says why).
  expect(container.env.find((e: any) => e.name === 'OPENAI_ACP_SANDBOX').value).toBe('off');
  expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
  expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
  expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
  expect(container.volumeMounts.map((m: any) => m.mountPath)).toEqual(expect.arrayContaining([STATE_DIR, '/workspace']));
}

describe('deploy/kubernetes/openai-acp.yaml', () => {
  const [secret, claim, deployment, service] = documents('openai-acp.yaml');

  it('holds a Secret, a PersistentVolumeClaim, a Deployment and a Service, each valid against the Kubernetes schemas', () => {
    expect([secret.kind, claim.kind, deployment.kind, service.kind]).toEqual(['Secret', 'PersistentVolumeClaim', 'Deployment', 'Service']);
    new Secret(secret).validate();
    new PersistentVolumeClaim(claim).validate();
    new Deployment(deployment).validate();
    new Service(service).validate();
  });

  it('the schema check refuses what the API server would (a port as text, a Deployment without a selector)', () => {
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'acp';
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort must be integer/);
    const { selector: _selector, ...withoutSelector } = deployment.spec;
    expect(() => new Deployment({ ...deployment, spec: withoutSelector }).validate()).toThrow(/selector/);
  });

  it('runs `openai-acp serve` as the agent needs it, its volume claimed, its port served', () => {
    const pod = deployment.spec.template;
    expectServes(pod.spec, secret);
    expect(pod.spec.volumes.find((v: any) => v.name === 'data').persistentVolumeClaim.claimName).toBe(claim.metadata.name);
    expect(deployment.spec.selector.matchLabels).toEqual(pod.metadata.labels);
    expect(service.spec.selector).toEqual(pod.metadata.labels);
    expect(service.spec.ports).toEqual([{ name: 'acp', port: 8765, targetPort: 'acp' }]);
    // A ReadWriteOnce volume: a new pod must not start before the old one let go of it.
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(deployment.spec.strategy.type).toBe('Recreate');
  });
});

describe('deploy/kubernetes/sandbox-template.yaml', () => {
  const [template] = documents('sandbox-template.yaml');
  const [secret] = documents('openai-acp.yaml');

  it('is an agent-sandbox v1beta1 SandboxTemplate whose pod template, volume claims and network rules are valid', () => {
    expect(template.apiVersion).toBe('extensions.agents.x-k8s.io/v1beta1');
    expect(template.kind).toBe('SandboxTemplate');
    expect(typeof template.metadata.name).toBe('string');
    expect(SANDBOX_TEMPLATE_FIELDS).toEqual(expect.arrayContaining(Object.keys(template.spec)));
    new PodTemplateSpec(template.spec.podTemplate).validate();
    for (const volume of template.spec.volumeClaimTemplates) new PersistentVolumeClaim(volume).validate();
    const { ingress, egress } = template.spec.networkPolicy;
    new NetworkPolicy({ metadata: { name: 'rules' }, spec: { podSelector: {}, ingress, egress } }).validate();
  });

  it('runs `openai-acp serve` on the port the Sandbox Router sends to, its sessions on the sandbox volume', () => {
    const { spec } = template.spec.podTemplate;
    expectServes(spec, secret);
    expect(spec.containers[0].ports[0].containerPort).toBe(8888);
    const names = [...template.spec.volumeClaimTemplates, ...spec.volumes.map((v: any) => ({ metadata: v }))].map((v: any) => v.metadata.name);
    for (const mount of spec.containers[0].volumeMounts) expect(names).toContain(mount.name);
  });
});
