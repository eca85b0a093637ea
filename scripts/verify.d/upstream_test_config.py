#!/usr/bin/python3
"""Writes the configuration files upstream's test project reads when scripts/verify runs it against the mock:

    upstream_test_config.py FOLDER PORT CERT_PEM

    FOLDER/test-config-thrift.json   DATABRICKS_TEST_CONFIG_FILE of the Thrift run (upstream's format:
                                     csharp/test/Resources/databricks.json, E2E/DatabricksTestConfiguration.cs)
    FOLDER/test-config-rest.json     the same for the REST run (protocol "rest")
    FOLDER/driver-config.json        ADBC_DATABRICKS_CONFIG_FILE: driver properties under whatever a test sets itself

The mock serves https on 127.0.0.1:PORT with its generated certificate (CERT_PEM). The REST path calls
https://<hostName> and drops a uri's port, so its hostName carries the port; the Thrift path refuses a hostName with a
port (and a uri beside a hostName), so its configuration gives hostName and port apart.
"""
import json
import pathlib
import sys

TOKEN = "mock-databricks-token"  # the mock's default (MOCK_DATABRICKS_TOKEN)
WAREHOUSE_PATH = "/sql/1.0/warehouses/mock"

# What upstream's tests query where the configuration names it (DriverTests.CanExecuteQuery and others): a result the
# mock serves from its generator, with its row count.
QUERY = "SELECT * FROM mock.small"
EXPECTED_RESULTS = 100
# The table the metadata tests look up (GetObjects, GetColumns) and its column count: upstream's read-only fixture
# table (DatabricksTestEnvironment.FixtureSchema; Resources/create_table_all_types.sql has its 20 columns), which the
# mock's catalog serves.
METADATA = {"catalog": "main", "schema": "adbc_testing", "table": "all_column_types", "expectedColumnCount": 20}

# Added under every connection's properties (the driver lets a property a test sets win): no retry of a 408/429/5xx or
# of a transport error (a refused connection is otherwise retried for up to 15 minutes), and the mock's certificate for
# the tests that build their connection properties themselves rather than from the test configuration.
DRIVER_RETRIES_OFF = {
    "adbc.spark.temporarily_unavailable_retry": "false",
    "adbc.databricks.rate_limit_retry": "false",
    "adbc.databricks.transport_error_retry": "false",
}
TRUSTED_CERTIFICATE = "adbc.http_options.tls.trusted_certificate_path"


def test_config(port, cert, protocol):
    config = {
        "path": WAREHOUSE_PATH,
        "token": TOKEN,
        "auth_type": "token",
        "type": "databricks",
        "query": QUERY,
        "expectedResults": EXPECTED_RESULTS,
        "metadata": METADATA,
        "http_options": {"tls": {"trusted_certificate_path": cert}},
        # As upstream's CI: skips the one test that waits 30 minutes (StatementTests.StatusPollerKeepsQueryAlive),
        # which would otherwise end each thrift run's first attempt as hung once the mock serves its RANGE query.
        "isCITesting": True,
    }
    if protocol == "rest":
        config.update({"hostName": f"127.0.0.1:{port}", "protocol": "rest"})
    else:
        config.update({"hostName": "127.0.0.1", "port": str(port)})
    return config


def main(folder, port, cert):
    out = pathlib.Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    cert = str(pathlib.Path(cert).resolve())
    for protocol in ("thrift", "rest"):
        (out / f"test-config-{protocol}.json").write_text(json.dumps(test_config(port, cert, protocol), indent=2) + "\n")
    (out / "driver-config.json").write_text(json.dumps({**DRIVER_RETRIES_OFF, TRUSTED_CERTIFICATE: cert}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
