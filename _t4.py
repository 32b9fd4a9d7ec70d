import anyio, sys, time
from mcp import Client, StdioServerParameters
async def main():
    t=time.perf_counter()
    p = StdioServerParameters(command=sys.executable, args=["-m","burnqed.cli","serve","stats"])
    async with Client(p) as c:
        print("connected", time.perf_counter()-t)
        await c.list_tools()
        print("listed", time.perf_counter()-t)
    print("closed", time.perf_counter()-t)
anyio.run(main)
