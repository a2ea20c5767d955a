import {
  connectionStringProblems,
  DEFAULT_SERVICEBUS_HOST_SUFFIXES,
  DEFAULT_STORAGE_HOST_SUFFIXES,
  deadLetterSecretProblems,
  type EndpointAllowList,
} from "../../src/endpoints/endpoint-allow-list";

// Where endpoints may point (docs/api.md): every spelling a client or the
// SDKs could read as another host is refused, so the service never sends to an arbitrary place.
const azureOnly: EndpointAllowList = {
  serviceBusSuffixes: DEFAULT_SERVICEBUS_HOST_SUFFIXES,
  storageSuffixes: DEFAULT_STORAGE_HOST_SUFFIXES,
  allowLoopback: false,
};
const withLoopback: EndpointAllowList = { ...azureOnly, allowLoopback: true };

function connectionString(endpoint: string, extra = ""): string {
  return `Endpoint=${endpoint};SharedAccessKeyName=send;SharedAccessKey=a2V5;EntityPath=t${extra}`;
}

describe("the Service Bus Endpoint", () => {
  it.each([
    "sb://ns.servicebus.windows.net/",
    "sb://ns.servicebus.windows.net",
    "sb://NS.ServiceBus.Windows.NET/",
    "sb://a-b.servicebus.chinacloudapi.cn/",
    "sb://ns.servicebus.usgovcloudapi.net/",
    "sb://xn--bcher-kva.servicebus.windows.net/",
  ])("admits the cloud host of %s", (endpoint) => {
    expect(connectionStringProblems(connectionString(endpoint), azureOnly)).toEqual([]);
    expect(connectionStringProblems(connectionString(endpoint), withLoopback)).toEqual([]);
  });

  it.each([
    ["the metadata address", "sb://169.254.169.254/"],
    ["a private address", "sb://10.0.0.1/"],
    ["a public address", "sb://20.42.0.1/"],
    ["a decimal address", "sb://2130706433/"],
    ["a hex address", "sb://0x7f.1/"],
    ["an octal address", "sb://0177.0.0.1/"],
    ["a short address", "sb://127.1/"],
    ["an IPv4-mapped IPv6 address", "sb://[::ffff:127.0.0.1]/"],
    ["an IPv4-mapped IPv6 address, compressed", "sb://[::ffff:7f00:1]/"],
    ["a long IPv6 loopback", "sb://[0:0:0:0:0:0:0:1]/"],
    ["an IPv6 address", "sb://[fd00::1]/"],
    ["a look-alike name", "sb://evil-servicebus.windows.net/"],
    ["the bare suffix", "sb://servicebus.windows.net/"],
    ["an allowed name inside another", "sb://x.servicebus.windows.net.evil.example/"],
    ["a trailing dot", "sb://x.servicebus.windows.net./"],
    ["an empty label", "sb://x..servicebus.windows.net/"],
    ["a label starting with a hyphen", "sb://-x.servicebus.windows.net/"],
    ["a unicode name", "sb://ⓧ.servicebus.windows.net/"],
    ["a full-width dot", "sb://x．servicebus.windows.net/"],
    ["a percent-encoded dot", "sb://x%2Eservicebus.windows.net/"],
    ["user information", "sb://ns.servicebus.windows.net@evil.example/"],
    ["a fragment before user information", "sb://evil.example#@ns.servicebus.windows.net/"],
    ["a backslash", "sb://evil.example\\ns.servicebus.windows.net/"],
    ["a port", "sb://ns.servicebus.windows.net:5671/"],
    ["a blank", "sb://ns.servicebus.windows.net /"],
    ["localhost", "sb://localhost:5672/"],
    ["the loopback address", "sb://127.0.0.1:5672/"],
    ["the IPv6 loopback", "sb://[::1]:5672/"],
    ["another scheme", "amqps://ns.servicebus.windows.net/"],
  ])("refuses %s without loopback", (_label, endpoint) => {
    const problems = connectionStringProblems(connectionString(endpoint), azureOnly);
    expect(problems).not.toEqual([]);
    for (const problem of problems) {
      expect(problem).toMatch(/Endpoint/);
      expect(problem).not.toMatch(/evil|169\.254/);
    }
  });

  it.each([
    "sb://127.0.0.1:5672/",
    "sb://127.9.8.7:1/",
    "sb://localhost:5672/",
    "sb://LocalHost:5672/",
    "sb://[::1]:5672/",
    "sb://127.0.0.1/",
  ])("admits the loopback host of %s when loopback is allowed, also over plain AMQP", (endpoint) => {
    expect(connectionStringProblems(connectionString(endpoint), withLoopback)).toEqual([]);
    expect(
      connectionStringProblems(connectionString(endpoint, ";UseDevelopmentEmulator=true"), withLoopback),
    ).toEqual([]);
  });

  it.each([
    ["a short loopback address", "sb://127.1:5672/"],
    ["a hex loopback address", "sb://0x7f000001:5672/"],
    ["localhost with a trailing dot", "sb://localhost.:5672/"],
    ["a name under localhost", "sb://x.localhost:5672/"],
    ["a private address", "sb://192.168.1.10:5672/"],
    ["port 0", "sb://127.0.0.1:0/"],
    ["a port out of range", "sb://127.0.0.1:65536/"],
    ["a port with a leading zero", "sb://127.0.0.1:05672/"],
  ])("refuses %s even when loopback is allowed", (_label, endpoint) => {
    expect(connectionStringProblems(connectionString(endpoint), withLoopback)).toEqual([
      expect.stringMatching(/Endpoint/),
    ]);
  });

  it("refuses UseDevelopmentEmulator (plain AMQP, no TLS) for a cloud host, loopback allowed or not", () => {
    const text = connectionString("sb://ns.servicebus.windows.net/", ";UseDevelopmentEmulator=true");
    for (const allowList of [azureOnly, withLoopback]) {
      expect(connectionStringProblems(text, allowList)).toEqual([
        expect.stringMatching(/UseDevelopmentEmulator/),
      ]);
    }
  });

  it("takes the suffixes it is configured with, on a label boundary", () => {
    const custom = { ...azureOnly, serviceBusSuffixes: [".bus.contoso.example"] };
    expect(connectionStringProblems(connectionString("sb://ns.bus.contoso.example/"), custom)).toEqual([]);
    expect(connectionStringProblems(connectionString("sb://nsbus.contoso.example/"), custom)).not.toEqual([]);
    expect(connectionStringProblems(connectionString("sb://ns.servicebus.windows.net/"), custom)).not.toEqual(
      [],
    );
  });
});

describe("the dead-letter URL", () => {
  const container = (origin: string, path = "/dead-letters") => `${origin}${path}?sv=2022-11-02&sig=c2ln`;

  it.each([
    "https://acct.blob.core.windows.net",
    "https://ACCT.Blob.Core.Windows.Net",
    "https://acct.blob.core.chinacloudapi.cn",
    "https://acct.blob.core.usgovcloudapi.net",
  ])("admits %s", (origin) => {
    expect(deadLetterSecretProblems(container(origin), azureOnly)).toEqual([]);
  });

  it.each([
    ["plain http to the cloud", container("http://acct.blob.core.windows.net")],
    ["a port", container("https://acct.blob.core.windows.net:8443")],
    ["the default port written out", container("https://acct.blob.core.windows.net:443")],
    ["the metadata address", container("https://169.254.169.254", "/acct/dead")],
    ["a decimal address", container("https://2130706433", "/acct/dead")],
    ["a hex address", container("https://0x7f.1", "/acct/dead")],
    ["an IPv6 address", container("https://[fd00::1]", "/acct/dead")],
    ["an IPv4-mapped IPv6 address", container("https://[::ffff:169.254.169.254]", "/acct/dead")],
    ["a look-alike name", container("https://evil-blob.core.windows.net")],
    ["an allowed name inside another", container("https://acct.blob.core.windows.net.evil.example")],
    ["a trailing dot", container("https://acct.blob.core.windows.net.")],
    ["another Azure service", container("https://acct.queue.core.windows.net")],
    ["a percent-encoded name", container("https://%61cct.blob.core.windows.net")],
    ["a full-width letter", container("https://ａcct.blob.core.windows.net")],
    ["a tab inside the host", container("https://acct.blob\t.core.windows.net")],
    ["localhost", container("http://localhost:10000", "/devstoreaccount1/dead")],
    ["the loopback address", container("http://127.0.0.1:10000", "/devstoreaccount1/dead")],
  ])("refuses %s without loopback", (_label, url) => {
    const problems = deadLetterSecretProblems(url, azureOnly);
    expect(problems.length).toBeGreaterThan(0);
    expect(JSON.stringify(problems)).not.toMatch(/evil|169\.254|c2ln/);
  });

  it.each([
    "http://127.0.0.1:10000/devstoreaccount1/dead-letters",
    "https://127.0.0.1:10000/devstoreaccount1/dead-letters",
    "http://localhost:10000/devstoreaccount1/dead-letters",
    "http://[::1]:10000/devstoreaccount1/dead-letters",
  ])("admits the path-style Azurite URL %s when loopback is allowed", (base) => {
    expect(deadLetterSecretProblems(`${base}?sv=2022-11-02&sig=c2ln`, withLoopback)).toEqual([]);
  });

  it.each([
    container("http://127.1:10000", "/devstoreaccount1/dead"),
    container("http://10.0.0.5:10000", "/devstoreaccount1/dead"),
    container("http://[::ffff:127.0.0.1]:10000", "/devstoreaccount1/dead"),
  ])("refuses %s even when loopback is allowed", (url) => {
    expect(deadLetterSecretProblems(url, withLoopback).length).toBeGreaterThan(0);
  });
});
