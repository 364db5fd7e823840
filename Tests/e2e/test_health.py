"""Health, readiness and metrics endpoints (API §7)."""

import re

# A Prometheus text-format sample: name, optional {labels}, value, optional timestamp.
SAMPLE_LINE = re.compile(
    r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? '
    r"([-+]?([0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?|NaN|Inf))( -?[0-9]+)?$"
)


def test_healthz_answers_ok_on_both_listeners(listener):
    response = listener.get("/healthz")
    assert response.status_code == 200
    assert response.text.strip() == "ok"


def test_readyz_is_200_on_admin_while_the_database_answers(admin):
    response = admin.get("/readyz")
    assert response.status_code == 200


def test_readyz_is_not_served_on_the_public_listener(public):
    assert public.get("/readyz").status_code == 404


def test_metrics_are_prometheus_text_on_admin(admin):
    response = admin.get("/metrics")
    assert response.status_code == 200
    assert response.headers.get("Content-Type", "").startswith("text/plain")
    lines = response.text.splitlines()
    assert any(line.startswith("# TYPE ") for line in lines), "no # TYPE lines"
    malformed = [line for line in lines if line and not line.startswith("#") and not SAMPLE_LINE.match(line)]
    assert malformed == [], f"lines that are not Prometheus samples: {malformed[:5]}"


def test_metrics_are_not_served_on_the_public_listener(public):
    assert public.get("/metrics").status_code == 404


def test_unknown_path_is_404(listener):
    assert listener.get("/no-such-path").status_code == 404
