// Trade the builder token for a signed session cookie, then open the builder.
document.getElementById("login").addEventListener("submit", async (e) => {
  e.preventDefault();
  const res = await fetch("/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: document.getElementById("token").value }),
  });
  if (res.ok) {
    location.href = "/builder";
  } else {
    const body = await res.json().catch(() => ({ error: { message: res.statusText } }));
    document.getElementById("login-error").textContent = body.error.message;
  }
});
